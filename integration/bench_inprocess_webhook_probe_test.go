//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/virtflow/virtflow/embedded/platform"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
)

// waitLive returns once the API server calls this webhook server: it picks
// up configuration changes from a watch, so right after an update it may
// still call a previous server. A dry-run create of an object each webhook
// rejects shows which server answers.
func (w *webhookSet) waitLive(ctx context.Context, c client.Client) error {
	var probes []struct {
		obj  client.Object
		want string
	}
	if w.virtAPI {
		probes = append(probes, struct {
			obj  client.Object
			want string
		}{&kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "webhook-probe-"}}, "no memory requested"})
	}
	if w.hco {
		probes = append(probes, struct {
			obj  client.Object
			want string
		}{hcoProbe(), "value is too small"})
	}
	if w.hpp {
		probes = append(probes, struct {
			obj  client.Object
			want string
		}{&hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "webhook-probe"}}, "either pathConfig or storage pools must be set"})
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range probes {
		for {
			err := c.Create(ctx, p.obj.DeepCopyObject().(client.Object), client.DryRunAll)
			if err != nil && strings.Contains(err.Error(), p.want) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("webhooks on 127.0.0.1:%d not reachable through the API server: %v", w.port, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// hcoProbe is a HyperConverged hco-webhook refuses: its CA would live one
// minute.
func hcoProbe() *hcov1beta1.HyperConverged {
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: platform.Namespace, Name: "webhook-probe"}}
	hc.Spec.CertConfig.CA.Duration = &metav1.Duration{Duration: time.Minute}
	return hc
}
