package platform

import (
	"net"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/virtflow/virtflow/operators/datavolume"
	"github.com/virtflow/virtflow/operators/hco"
	"github.com/virtflow/virtflow/operators/virtapi"
)

var createUpd = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}

func (w *webhookSet) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(w.port)) + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: w.bundle}
}

func (w *webhookSet) validating(hcoHooks, virtAPIHooks bool) []admissionregistrationv1.ValidatingWebhook {
	cc, rules := w.clientConfig, virtapi.Rules
	var hooks []admissionregistrationv1.ValidatingWebhook
	if hcoHooks {
		hooks = append(hooks, hco.ValidatingWebhooks(cc, Namespace)...)
	}
	if !virtAPIHooks {
		return hooks
	}
	// In-process virt-api's VM and VMI hooks and CDI's DataVolume hook;
	// a virt-api or cdi-apiserver pod has its own configurations.
	if !w.virtAPIPod {
		hooks = append(hooks, virtapi.ValidatingWebhooks(cc)...)
	}
	if w.cdiPod {
		return hooks
	}
	return append(hooks, virtapi.Validating(cc, "datavolume-validate.cdi.kubevirt.io", datavolume.ValidatePath,
		rules("cdi.kubevirt.io", "v1beta1", "datavolumes", createUpd...)))
}

func (w *webhookSet) mutating() []admissionregistrationv1.MutatingWebhook {
	return virtapi.MutatingWebhooks(w.clientConfig)
}
