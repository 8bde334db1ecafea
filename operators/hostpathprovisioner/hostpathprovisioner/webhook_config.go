package hostpathprovisioner

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/kube/workloads"
)

// The webhook's names, as upstream's operator deploys it.
const (
	WebhookService    = "hostpath-provisioner-operator-webhook-service"
	WebhookCertSecret = "hostpath-provisioner-operator-webhook-service-cert"
	WebhookConfigName = "hostpathprovisioner.kubevirt.io"
	WebhookName       = "validate-hostpath-provisioner.kubevirt.io"
)

// ValidatingWebhook is the HostPathProvisioner validator as HCO's bundle
// registers it.
func ValidatingWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name: WebhookName, ClientConfig: cc(ValidatePath),
		Rules: webhookconfig.Rules("hostpathprovisioner.kubevirt.io", "v1beta1", "hostpathprovisioners",
			admissionregistrationv1.Create, admissionregistrationv1.Delete, admissionregistrationv1.Update),
		FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
		TimeoutSeconds: ptr.To(int32(10)), AdmissionReviewVersions: []string{"v1beta1"},
	}
}

// WebhookObjects are the operator's serving certificate, kept while valid,
// and the webhook configuration trusting its CA: what OLM provides the
// operator upstream, and hco-operator keeps here.
func WebhookObjects(ctx context.Context, r client.Reader, ns string) ([]client.Object, error) {
	l := map[string]string{"app.kubernetes.io/component": "storage", "app.kubernetes.io/managed-by": "hco-operator"}
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, WebhookCertSecret, []string{WebhookService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: WebhookConfigName, Labels: l},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{ValidatingWebhook(workloads.ServiceClientConfig(ns, WebhookService, bundle))},
	}
	return []client.Object{certs, cfg}, nil
}
