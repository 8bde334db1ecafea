//go:build integration && bench

package integration

import (
	"net"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
)

func (w *webhookSet) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(w.port)) + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: w.bundle}
}

func (w *webhookSet) validating(hcoHooks, virtAPIHooks bool) []admissionregistrationv1.ValidatingWebhook {
	cc := w.clientConfig
	var hooks []admissionregistrationv1.ValidatingWebhook
	if hcoHooks {
		hooks = append(hooks, hyperconverged.ValidatingWebhooks(cc)...)
	}
	if !virtAPIHooks {
		return hooks
	}
	hooks = append(hooks, virtadmission.ValidatingWebhooks(cc)...)
	return append(hooks, cdi.DataVolumeWebhook(cc), cdi.DataImportCronWebhook(cc), cdi.PopulatorWebhook(cc), cdi.UninstallWebhook(cc))
}

func (w *webhookSet) mutating() []admissionregistrationv1.MutatingWebhook {
	return virtadmission.MutatingWebhooks(w.clientConfig)
}
