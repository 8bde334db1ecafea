package ssp

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operands/commontemplates"
	"github.com/virtflow/virtflow/operators/ssp/templatevalidator"
)

// Names of the template validator's objects, as upstream's ssp-operator
// creates them.
const (
	Validator      = "virt-template-validator"
	ValidatorCerts = "virt-template-validator-certs"
	validatorSA    = "template-validator"
	// CertDir is where the validator's serving certificate is mounted.
	CertDir = "/etc/webhook/certs"
)

// Install is what ssp-operator's workloads are made of.
type Install struct {
	// Namespace is where the validator runs (the operator's).
	Namespace string
	// Image holds /usr/bin/virtflow, which runs the validator.
	Image string
}

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error) {
	switch name {
	case Validator:
		return in.validator(ctx, c, validatorReplicas(owner))
	}
	return nil, fmt.Errorf("ssp-operator has no workload for %s", name)
}

func labels() map[string]string {
	return map[string]string{"kubevirt.io": Validator, "app.kubernetes.io/managed-by": "ssp-operator",
		"app.kubernetes.io/component": "templating", "app.kubernetes.io/name": "template-validator"}
}

func selector() map[string]string { return map[string]string{"kubevirt.io": Validator} }

// validator is virt-template-validator: its Deployment, Service, serving
// certificate and webhook configuration.
func (in Install) validator(ctx context.Context, r client.Reader, replicas int32) ([]client.Object, error) {
	ns, l := in.Namespace, labels()
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, ValidatorCerts, []string{Validator + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	c := workloads.Container(in.Image, "webhook", Validator, []string{"--cert-dir=" + CertDir})
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "https", ContainerPort: workloads.ServingPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = workloads.NonRoot()
	c.VolumeMounts = []corev1.VolumeMount{{Name: "certificates", MountPath: CertDir, ReadOnly: true}}
	d := workloads.Deployment(ns, Validator, validatorSA, l, selector(), c, workloads.ServingVolume(ValidatorCerts))
	// The webhook fails closed on every VM write: more than one replica
	// keeps VMs writable while one pod moves.
	d.Spec.Replicas = &replicas
	objs := []client.Object{d, certs, workloads.Service(ns, Validator, selector(), l),
		ValidatingWebhooks(workloads.ServiceClientConfig(ns, Validator, bundle), l)}
	return append(objs, ValidatorRBAC(ns)...), nil
}

// validatorReplicas is the SSP's spec.templateValidator.replicas (HCO
// asks for 2), 1 when unset, as upstream.
func validatorReplicas(owner client.Object) int32 {
	u, ok := owner.(*unstructured.Unstructured)
	if !ok {
		return 1
	}
	n, found, _ := unstructured.NestedInt64(u.Object, "spec", "templateValidator", "replicas")
	if !found || n < 1 {
		return 1
	}
	return int32(n)
}

// ValidatingWebhooks is upstream's virt-template-validator configuration:
// VMs on create and update, and deleting a base template, reached through
// cc.
func ValidatingWebhooks(cc func(path string) admissionregistrationv1.WebhookClientConfig, l map[string]string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	var vmRules []admissionregistrationv1.RuleWithOperations
	for _, v := range kubevirtv1.ApiSupportedWebhookVersions {
		vmRules = append(vmRules, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{kubevirtv1.SchemeGroupVersion.Group}, APIVersions: []string{v}, Resources: []string{"virtualmachines"}},
		})
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: Validator, Labels: l},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "virtualmachine-admission.ssp.kubevirt.io", ClientConfig: cc(templatevalidator.VMValidatePath),
			Rules: vmRules, FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}, {
			Name: "template-admission.ssp.kubevirt.io", ClientConfig: cc(templatevalidator.TemplateValidatePath),
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{commontemplates.LabelType: commontemplates.TypeBase}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"template.openshift.io"}, APIVersions: []string{"v1"},
					Resources: []string{"templates"}},
			}},
			FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}
}
