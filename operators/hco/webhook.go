package hco

import (
	"context"
	"fmt"
	"net/http"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// Webhook paths, as HCO serves them.
const (
	ValidatePath          = "/validate-hco-kubevirt-io-v1beta1-hyperconverged"
	ValidateNamespacePath = "/validate-ns-hco-kubevirt-io"
)

// Validator rejects HyperConverged objects HCO would reject.
type Validator struct {
	// Reader lists existing HyperConverged objects.
	Reader client.Reader
	// Namespace is the only namespace a HyperConverged may live in.
	Namespace string
	Decoder   admission.Decoder
}

// Handle validates CREATE and UPDATE of a HyperConverged.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete {
		return admission.Allowed("")
	}
	hc := &hcov1beta1.HyperConverged{}
	if err := v.Decoder.Decode(req, hc); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged: %w", err))
	}
	if err := validateFeatureGateNames(req.Object.Raw); err != nil {
		return admission.Denied(err.Error())
	}
	if req.Operation == admissionv1.Create {
		if err := v.validateCreate(ctx, hc); err != nil {
			return admission.Denied(err.Error())
		}
	}
	if err := ValidateSpec(&hc.Spec); err != nil {
		return admission.Denied(err.Error())
	}
	return admission.Allowed("")
}

func (v *Validator) validateCreate(ctx context.Context, hc *hcov1beta1.HyperConverged) error {
	if hc.Namespace != v.Namespace {
		return fmt.Errorf("invalid namespace for v1beta1.HyperConverged - please use the %s namespace", v.Namespace)
	}
	if hc.Name != hcov1beta1.HyperConvergedName {
		return fmt.Errorf("Request does not match expected name (%s) and namespace (%s)", hcov1beta1.HyperConvergedName, v.Namespace)
	}
	list := &hcov1beta1.HyperConvergedList{}
	if err := v.Reader.List(ctx, list); err != nil {
		return fmt.Errorf("listing existing HyperConverged resources: %w", err)
	}
	for _, other := range list.Items {
		if other.UID != hc.UID {
			return fmt.Errorf("a HyperConverged already exists (%s/%s); only one HyperConverged is allowed per cluster", other.Namespace, other.Name)
		}
	}
	return nil
}

// ValidateSpec checks the fields the schema cannot.
func ValidateSpec(spec *hcov1beta1.HyperConvergedSpec) error {
	lm := spec.LiveMigrationConfig
	if lm.BandwidthPerMigration != nil {
		q, err := resource.ParseQuantity(*lm.BandwidthPerMigration)
		if err != nil {
			return fmt.Errorf("failed to parse the LiveMigrationConfig.bandwidthPerMigration field; %s", err.Error())
		}
		if q.Sign() < 0 {
			return fmt.Errorf("the LiveMigrationConfig.bandwidthPerMigration field must not be negative, got %s", q.String())
		}
	}
	if lm.CompletionTimeoutPerGiB != nil && *lm.CompletionTimeoutPerGiB < 1 {
		return fmt.Errorf("the LiveMigrationConfig.completionTimeoutPerGiB field must be at least 1 second, got %d", *lm.CompletionTimeoutPerGiB)
	}
	if lm.ProgressTimeout != nil && *lm.ProgressTimeout < 1 {
		return fmt.Errorf("the LiveMigrationConfig.progressTimeout field must be at least 1 second, got %d", *lm.ProgressTimeout)
	}
	if lm.ParallelMigrationsPerCluster != nil && *lm.ParallelMigrationsPerCluster == 0 {
		return fmt.Errorf("the LiveMigrationConfig.parallelMigrationsPerCluster field must be at least 1")
	}
	if lm.ParallelOutboundMigrationsPerNode != nil && *lm.ParallelOutboundMigrationsPerNode == 0 {
		return fmt.Errorf("the LiveMigrationConfig.parallelOutboundMigrationsPerNode field must be at least 1")
	}
	return validateTLS(spec.TLSSecurityProfile)
}

func validateTLS(p *ocpconfigv1.TLSSecurityProfile) error {
	if p == nil || p.Custom == nil {
		return nil
	}
	if p.Custom.MinTLSVersion != "VersionTLS13" && len(p.Custom.Ciphers) == 0 {
		return fmt.Errorf("tlsSecurityProfile.custom: at least one cipher is required unless minTLSVersion is VersionTLS13")
	}
	return nil
}

// NamespaceValidator refuses deleting the install namespace while a
// HyperConverged lives in it, which would otherwise strand its finalizer.
type NamespaceValidator struct {
	Reader    client.Reader
	Namespace string
}

// Handle validates DELETE of a Namespace.
func (v *NamespaceValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Delete || req.Name != v.Namespace {
		return admission.Allowed("")
	}
	list := &hcov1beta1.HyperConvergedList{}
	if err := v.Reader.List(ctx, list, client.InNamespace(v.Namespace)); err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("listing HyperConverged resources: %w", err))
	}
	if len(list.Items) > 0 {
		return admission.Denied("HyperConverged CR is still present, please remove it before deleting the containing namespace")
	}
	return admission.Allowed("")
}
