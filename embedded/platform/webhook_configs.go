package platform

import (
	"net"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/operators/datavolume"
	"github.com/virtflow/virtflow/operators/hco"
	"github.com/virtflow/virtflow/operators/virtapi"
)

var (
	failClosed = admissionregistrationv1.Fail
	noSideFx   = admissionregistrationv1.SideEffectClassNone
	hookTimout = int32(10)
	reviewV1   = []string{"v1"}
	createUpd  = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
)

func (w *webhookSet) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(w.port)) + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: w.bundle}
}

func rules(group, version, resource string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
		APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource},
	}}}
}

func (w *webhookSet) validating(hcoHooks, virtAPIHooks bool) []admissionregistrationv1.ValidatingWebhook {
	hook := func(name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name: name, ClientConfig: w.clientConfig(path), Rules: r, FailurePolicy: &failClosed,
			SideEffects: &noSideFx, TimeoutSeconds: &hookTimout, AdmissionReviewVersions: reviewV1,
		}
	}
	var hooks []admissionregistrationv1.ValidatingWebhook
	if hcoHooks {
		hcoHook := hook("validate-hco.kubevirt.io", hco.ValidatePath, rules("hco.kubevirt.io", "v1beta1", "hyperconvergeds",
			admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete))
		nsHook := hook("validate-ns.hco.kubevirt.io", hco.ValidateNamespacePath, rules("", "v1", "namespaces", admissionregistrationv1.Delete))
		nsHook.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": Namespace}}
		hooks = append(hooks, hcoHook, nsHook)
	}
	if virtAPIHooks {
		hooks = append(hooks,
			hook("virtualmachine-validator.kubevirt.io", virtapi.VMValidatePath, rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
			hook("virtualmachineinstances-create-validator.kubevirt.io", virtapi.VMIValidatePath,
				rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
			hook("datavolume-validate.cdi.kubevirt.io", datavolume.ValidatePath, rules("cdi.kubevirt.io", "v1beta1", "datavolumes", createUpd...)))
	}
	return hooks
}

func (w *webhookSet) mutating() []admissionregistrationv1.MutatingWebhook {
	hook := func(name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name: name, ClientConfig: w.clientConfig(path), Rules: r, FailurePolicy: &failClosed,
			SideEffects: &noSideFx, TimeoutSeconds: &hookTimout, AdmissionReviewVersions: reviewV1,
		}
	}
	return []admissionregistrationv1.MutatingWebhook{
		hook("virtualmachines-mutator.kubevirt.io", virtapi.VMMutatePath, rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
		hook("virtualmachineinstances-mutator.kubevirt.io", virtapi.VMIMutatePath,
			rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
	}
}
