package hyperconverged

import (
	"context"
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/kube/workloads"
)

// hco-webhook's names, as upstream's deployment has them.
const (
	WebhookService      = "hyperconverged-cluster-webhook-service"
	WebhookCertSecret   = "hyperconverged-cluster-webhook-service-cert"
	WebhookConfigName   = "validate-hco.kubevirt.io"
	MutatingConfigName  = "mutate-hco.kubevirt.io"
	WebhookCertDir      = "/apiserver.local.config/certificates"
	ValidatingHookName  = "validate-hco-v1beta1.kubevirt.io"
	MutatingHookName    = "mutate-hyperconverged-hco-v1beta1.kubevirt.io"
	NamespaceHookName   = "mutate-ns-hco.kubevirt.io"
	namespaceNameLabel  = "kubernetes.io/metadata.name"
	hookTimeoutSeconds  = int32(10)
	hyperConvergedGroup = "hco.kubevirt.io"
)

// reviewVersions are the AdmissionReview versions hco-webhook accepts.
var reviewVersions = []string{"v1beta1", "v1"}

// Webhooks are hco-webhook's handlers by path: c dry-runs component
// changes, reader finds the HyperConverged guarding the namespace ns.
func Webhooks(c client.Client, reader client.Reader, dec admission.Decoder, ns string) map[string]http.Handler {
	return map[string]http.Handler{
		ValidatePath:        &webhook.Admission{Handler: &Validator{Client: c, Decoder: dec}},
		MutatePath:          &webhook.Admission{Handler: &Mutator{Decoder: dec}},
		MutateNamespacePath: &webhook.Admission{Handler: &NamespaceMutator{Reader: reader, Namespace: ns, Decoder: dec}},
	}
}

// ValidatingWebhooks are hco-webhook's validating webhooks: the v1beta1
// HyperConverged validator. Exact matching keeps requests for other API
// versions away from it, as upstream does with a validator per version.
func ValidatingWebhooks(cc webhookconfig.ClientConfig) []admissionregistrationv1.ValidatingWebhook {
	rules := webhookconfig.Rules(hyperConvergedGroup, "v1beta1", "hyperconvergeds",
		admissionregistrationv1.Create, admissionregistrationv1.Delete, admissionregistrationv1.Update)
	return []admissionregistrationv1.ValidatingWebhook{{
		Name: ValidatingHookName, ClientConfig: cc(ValidatePath), Rules: rules,
		FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchPolicy: ptr.To(admissionregistrationv1.Exact),
		SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), TimeoutSeconds: ptr.To(hookTimeoutSeconds),
		AdmissionReviewVersions: reviewVersions,
	}}
}

// MutatingWebhooks are hco-webhook's mutating webhooks: the guard against
// deleting the install namespace while it holds the HyperConverged, and
// the v1beta1 HyperConverged defaulter.
func MutatingWebhooks(cc webhookconfig.ClientConfig, namespace string) []admissionregistrationv1.MutatingWebhook {
	ns := admissionregistrationv1.MutatingWebhook{
		Name: NamespaceHookName, ClientConfig: cc(MutateNamespacePath),
		Rules:          webhookconfig.Rules("", "v1", "namespaces", admissionregistrationv1.Delete),
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{namespaceNameLabel: namespace}},
		FailurePolicy:  ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
		TimeoutSeconds: ptr.To(hookTimeoutSeconds), AdmissionReviewVersions: reviewVersions,
	}
	hc := admissionregistrationv1.MutatingWebhook{
		Name: MutatingHookName, ClientConfig: cc(MutatePath),
		Rules:         webhookconfig.Rules(hyperConvergedGroup, "v1beta1", "hyperconvergeds", admissionregistrationv1.Create, admissionregistrationv1.Update),
		FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchPolicy: ptr.To(admissionregistrationv1.Exact),
		SideEffects:    ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
		TimeoutSeconds: ptr.To(hookTimeoutSeconds), AdmissionReviewVersions: reviewVersions,
	}
	return []admissionregistrationv1.MutatingWebhook{ns, hc}
}

// WebhookObjects are what hco-webhook's pods need from the operator, as
// OLM provides upstream: the serving certificate, kept while valid, and
// the webhook configurations trusting its CA; and, as hco-operator keeps
// them upstream, the admission policy tying HyperConverged to the install
// namespace.
func WebhookObjects(ctx context.Context, r client.Reader, ns string) ([]client.Object, error) {
	l := map[string]string{"app.kubernetes.io/component": "deployment", "app.kubernetes.io/managed-by": "hco-operator"}
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, WebhookCertSecret, []string{WebhookService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	cc := workloads.ServiceClientConfig(ns, WebhookService, bundle)
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: WebhookConfigName, Labels: l},
		Webhooks:   ValidatingWebhooks(cc),
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigName, Labels: l},
		Webhooks:   MutatingWebhooks(cc, ns),
	}
	policy, binding, err := NamespacePolicy(ctx, r, ns)
	if err != nil {
		return nil, err
	}
	return []client.Object{certs, validating, mutating, policy, binding}, nil
}
