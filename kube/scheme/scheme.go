// Package scheme is the runtime scheme of every kind virtflow reads or
// writes: the built-in kinds, KubeVirt's, CDI's, SSP's, IPAMClaims and
// virtflow's own.
package scheme

import (
	"fmt"

	templatev1 "github.com/openshift/api/template/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	poolv1alpha1 "kubevirt.io/api/pool/v1alpha1"
	poolv1beta1 "kubevirt.io/api/pool/v1beta1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	ipamclaimsv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
)

// New registers the built-in kinds and every virtflow and upstream
// KubeVirt-family kind.
func New() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		kubevirtv1.AddToScheme, instancetypev1beta1.AddToScheme, cdiv1beta1.AddToScheme, sspv1beta3.AddToScheme,
		templatev1.AddToScheme,
		poolv1alpha1.AddToScheme, poolv1beta1.AddToScheme, migrationsv1alpha1.AddToScheme,
		hcov1beta1.AddToScheme, nacv1.AddToScheme, hppv1beta1.AddToScheme, ipamclaimsv1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}
