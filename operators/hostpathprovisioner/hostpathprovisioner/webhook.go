package hostpathprovisioner

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
)

// ValidatePath is where hostpath-provisioner-operator serves
// HostPathProvisioner validation, the path controller-runtime derives for
// the kind, as upstream's operator does.
const ValidatePath = "/validate-hostpathprovisioner-kubevirt-io-v1beta1-hostpathprovisioner"

// Limits the host paths and pool names must stay within.
const (
	maxStoragePoolNameLength = 50
	maxPathLength            = 255
)

// Validator admits HostPathProvisioner objects as upstream's operator does:
// exactly one of pathConfig and storagePools, and pools with names and
// paths that are set, short enough and not repeated. Deletion is always
// allowed.
type Validator struct{}

var _ admission.Validator[*hppv1beta1.HostPathProvisioner] = Validator{}

// Webhook is the HTTP handler of the validator; controller-runtime's
// wrapper decodes the request and turns errors into denials, as it does
// upstream.
func Webhook(scheme *runtime.Scheme) http.Handler {
	return admission.WithValidator[*hppv1beta1.HostPathProvisioner](scheme, Validator{})
}

// ValidateCreate checks a new HostPathProvisioner.
func (Validator) ValidateCreate(_ context.Context, hpp *hppv1beta1.HostPathProvisioner) (admission.Warnings, error) {
	return nil, validateSpec(&hpp.Spec)
}

// ValidateUpdate checks the HostPathProvisioner as it would become.
func (Validator) ValidateUpdate(_ context.Context, _, hpp *hppv1beta1.HostPathProvisioner) (admission.Warnings, error) {
	return nil, validateSpec(&hpp.Spec)
}

// ValidateDelete allows every deletion.
func (Validator) ValidateDelete(context.Context, *hppv1beta1.HostPathProvisioner) (admission.Warnings, error) {
	return nil, nil
}

func validateSpec(spec *hppv1beta1.HostPathProvisionerSpec) error {
	switch {
	case spec.PathConfig != nil && len(spec.StoragePools) > 0:
		return errors.New("pathConfig and storage pools cannot be both set")
	case spec.PathConfig == nil && len(spec.StoragePools) == 0:
		return errors.New("either pathConfig or storage pools must be set")
	case spec.PathConfig != nil && spec.PathConfig.Path == "":
		return errors.New("pathconfig path must be set")
	}
	return validatePools(spec.StoragePools)
}

// validatePools checks each pool and then that no path or name repeats,
// naming the pool that repeats an earlier one.
func validatePools(pools []hppv1beta1.StoragePool) error {
	paths, names := map[string]int{}, map[string]int{}
	for i, pool := range pools {
		if err := validatePool(pool); err != nil {
			return err
		}
		if first, ok := paths[pool.Path]; ok {
			return fmt.Errorf("spec.storagePools[%d].path is the same as spec.storagePools[%d].path, cannot have duplicate paths", i, first)
		}
		paths[pool.Path] = i
		if first, ok := names[pool.Name]; ok {
			return fmt.Errorf("spec.storagePools[%d].name is the same as spec.storagePools[%d].name, cannot have duplicate names", i, first)
		}
		names[pool.Name] = i
	}
	return nil
}

func validatePool(pool hppv1beta1.StoragePool) error {
	switch {
	case pool.Name == "":
		return errors.New("storagePool.name cannot be blank")
	case len(pool.Name) > maxStoragePoolNameLength:
		return fmt.Errorf("storagePool.name cannot have a length greater than %d", maxStoragePoolNameLength)
	case pool.Path == "":
		return errors.New("storagePool.path cannot be blank")
	case len(pool.Path) > maxPathLength:
		return fmt.Errorf("storagePool.path cannot have a length greater than %d", maxPathLength)
	}
	return nil
}
