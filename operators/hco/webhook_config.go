package hco

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/component"
	"github.com/virtflow/virtflow/operators/virtapi"
)

// hco-webhook's names, as upstream's deployment has them.
const (
	WebhookService    = "hyperconverged-cluster-webhook-service"
	WebhookCertSecret = "hyperconverged-cluster-webhook-service-cert"
	WebhookConfigName = "validate-hco.kubevirt.io"
	WebhookCertDir    = "/apiserver.local.config/certificates"
)

// ValidatingWebhooks are hco-webhook's: the HyperConverged validator and
// the guard against deleting the install namespace while it holds one.
func ValidatingWebhooks(cc virtapi.ClientConfig, namespace string) []admissionregistrationv1.ValidatingWebhook {
	hc := virtapi.Validating(cc, "validate-hco.kubevirt.io", ValidatePath, virtapi.Rules("hco.kubevirt.io", "v1beta1", "hyperconvergeds",
		admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete))
	ns := virtapi.Validating(cc, "validate-ns.hco.kubevirt.io", ValidateNamespacePath, virtapi.Rules("", "v1", "namespaces", admissionregistrationv1.Delete))
	ns.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": namespace}}
	return []admissionregistrationv1.ValidatingWebhook{hc, ns}
}

// WebhookObjects are what hco-webhook's pods need from the operator, as
// OLM provides upstream: the serving certificate, kept while valid, and
// the webhook configuration trusting its CA.
func WebhookObjects(ctx context.Context, r client.Reader, ns string) ([]client.Object, error) {
	l := map[string]string{"app.kubernetes.io/component": "deployment", "app.kubernetes.io/managed-by": "hco-operator"}
	certs, bundle, err := component.ServingCert(ctx, r, ns, WebhookCertSecret, []string{WebhookService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: WebhookConfigName, Labels: l},
		Webhooks:   ValidatingWebhooks(component.ServiceClientConfig(ns, WebhookService, bundle), ns),
	}
	return []client.Object{certs, cfg}, nil
}
