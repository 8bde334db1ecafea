package platform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/node/handler"
)

// applyEmbeddedOverlay applies deploy/embedded, as a cluster user applies
// deploy/cluster, and waits until its CRDs are established: the CRDs and
// RBAC, the operators, hco-webhook, cli-download and the control worker, from
// the components image this run imported, against Temporal on the bridge,
// with the node's paths under the data directory (the kubelet's root, the
// CNI directories cluster-network-addons-operator installs into).
func (p *Platform) applyEmbeddedOverlay(ctx context.Context, node handler.Config) error {
	_, tag, _ := strings.Cut(p.componentsImage, ":")
	_, cliTag, _ := strings.Cut(p.cliDownloadsImage, ":")
	domain := os.Getenv("VIRTFLOW_DOMAIN_TYPE")
	if domain == "" {
		domain = `""`
	}
	out, err := deploy.Overlay(deploy.EmbeddedOverlay, map[string]string{
		deploy.ComponentsTag: tag, deploy.CLIDownloadsTag: cliTag, deploy.TemporalAddress: p.temporalForPods(), deploy.TemporalUI: p.TemporalUI(),
		deploy.KubeletRoot: node.KubeletRoot, deploy.NodeDir: filepath.Dir(node.Dir), deploy.HostRoot: node.StorageRoot(),
		deploy.CSIProvisionerImage: p.csiProvisionerImage, deploy.DomainType: domain,
		deploy.TektonTasksImage: p.tektonTasksImage, deploy.TektonTasksDiskVirtImage: p.tektonTasksDiskVirtImage,
		deploy.CNIBinDir: p.node.CNIPluginDir(), deploy.CNIConfDir: p.node.CNIConfDir(), deploy.MultusImage: p.multusImage,
	})
	if err != nil {
		return err
	}
	c, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return err
	}
	if err := removeInProcessWebhooks(ctx, c); err != nil {
		return err
	}
	p.say("applying deploy/embedded (the CRDs, RBAC, hco-operator, hco-webhook, cli-download, the component operators and the control worker)")
	objs, err := apply.Manifests(ctx, c, out, string(fieldOwner))
	if err != nil {
		return fmt.Errorf("applying deploy/embedded: %w", err)
	}
	var crds []string
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o.GetName())
		}
	}
	return waitEstablished(ctx, c, crds)
}

// The webhook configurations an earlier release registered for webhooks
// served in its own process; the benchmark's in-process services use them
// still.

// WebhookConfigName is the ValidatingWebhookConfiguration of hco-webhook.
const WebhookConfigName = "virtflow-hco-webhook"

// VirtAPIValidatorName is virt-api's ValidatingWebhookConfiguration.
const VirtAPIValidatorName = "virtflow-virt-api-validator"

// MutatingConfigName is virt-api's MutatingWebhookConfiguration.
const MutatingConfigName = "virtflow-virt-api-mutator"

// HCOMutatingConfigName is hco-webhook's MutatingWebhookConfiguration.
const HCOMutatingConfigName = "virtflow-hco-mutator"

// HPPValidatorName is hostpath-provisioner-operator's
// ValidatingWebhookConfiguration.
const HPPValidatorName = "virtflow-hpp-validator"

// removeInProcessWebhooks deletes the webhook configurations an earlier
// release's `up` pointed at its own process: left behind, the API server
// would call a port nobody serves and refuse what they match.
func removeInProcessWebhooks(ctx context.Context, c client.Client) error {
	for _, name := range []string{WebhookConfigName, VirtAPIValidatorName, HPPValidatorName} {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := c.Delete(ctx, cfg); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("removing ValidatingWebhookConfiguration %s: %w", name, err)
		}
	}
	for _, name := range []string{MutatingConfigName, HCOMutatingConfigName} {
		mut := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := c.Delete(ctx, mut); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("removing MutatingWebhookConfiguration %s: %w", name, err)
		}
	}
	return nil
}

// ensureHyperConvergedWhenAdmitted creates the default HyperConverged,
// trying again while hco-webhook's pod is not serving yet.
func ensureHyperConvergedWhenAdmitted(ctx context.Context, cfg *rest.Config) error {
	return whenAdmitted(ctx, func() error { return EnsureHyperConverged(ctx, cfg) })
}

// whenAdmitted runs create, trying again while the pod serving a webhook
// that matches is not serving yet: the webhooks fail closed, as upstream's.
func whenAdmitted(ctx context.Context, create func() error) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := create()
		if err == nil || time.Now().After(deadline) || !strings.Contains(err.Error(), "failed calling webhook") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
