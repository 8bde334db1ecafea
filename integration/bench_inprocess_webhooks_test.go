//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"net"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/cdi/dataimportcron"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
	"github.com/virtflow/virtflow/operators/cdi/volumepopulator"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner/hostpathprovisioner"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
)

// webhookSet is the admission webhooks of hco-webhook, virt-api and
// hostpath-provisioner-operator: one TLS server, its rotated certificates
// and the configurations pointing at it.
type webhookSet struct {
	server  webhook.Server
	certDir string
	port    int
	bundle  []byte
	hco     bool
	virtAPI bool
	hpp     bool
}

func newWebhookSet(certDir string) (*webhookSet, error) {
	bundle, _, err := webhookcert.Ensure(certDir, []string{"127.0.0.1", "localhost"}, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a port for hco-webhook: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := webhook.NewServer(webhook.Options{
		Host: "127.0.0.1", Port: port, CertDir: certDir,
		CertName: webhookcert.CertFile, KeyName: webhookcert.KeyFile,
	})
	return &webhookSet{server: srv, certDir: certDir, port: port, bundle: bundle}, nil
}

// attach registers the handlers on the manager's webhook server; asking the
// manager for it is also what makes the manager run it.
func (w *webhookSet) attach(mgr ctrl.Manager, hcoHooks, virtAPIHooks, hppHook bool) {
	dec := admission.NewDecoder(mgr.GetScheme())
	w.server = mgr.GetWebhookServer()
	w.hco, w.virtAPI, w.hpp = hcoHooks, virtAPIHooks, hppHook
	if hppHook {
		w.server.Register(hostpathprovisioner.ValidatePath, hostpathprovisioner.Webhook(mgr.GetScheme()))
	}
	if virtAPIHooks {
		for path, h := range virtadmission.Webhooks(dec, mgr.GetAPIReader()) {
			w.server.Register(path, h)
		}
		w.server.Register(datavolume.ValidatePath, &webhook.Admission{Handler: &datavolume.Validator{Client: mgr.GetClient(), Reader: mgr.GetAPIReader()}})
		w.server.Register(dataimportcron.ValidatePath, &webhook.Admission{Handler: &dataimportcron.Validator{}})
		w.server.Register(volumepopulator.ValidatePath, &webhook.Admission{Handler: &volumepopulator.Validator{}})
		w.server.Register(cdi.UninstallValidatePath, &webhook.Admission{Handler: &cdi.UninstallValidator{Reader: mgr.GetAPIReader()}})
	}
	if !hcoHooks {
		return
	}
	for path, h := range hyperconverged.Webhooks(mgr.GetClient(), mgr.GetAPIReader(), dec, platform.Namespace) {
		w.server.Register(path, h)
	}
}

// register writes the webhook configuration once the server answers, so
// the API server never calls a webhook that is not listening yet.
func (w *webhookSet) register(ctx context.Context, c client.Client) error {
	deadline := time.Now().Add(30 * time.Second)
	for w.server.StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("hco-webhook did not start listening on 127.0.0.1:%d", w.port)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.apply(ctx, c); err != nil {
		return err
	}
	return w.waitLive(ctx, c)
}

func (w *webhookSet) apply(ctx context.Context, c client.Client) error {
	// hco-webhook and virt-api own separate configurations, so services
	// running only one of them never drop the other's webhooks.
	if w.hco {
		if err := w.applyHCO(ctx, c); err != nil {
			return err
		}
	}
	if w.hpp {
		hooks := []admissionregistrationv1.ValidatingWebhook{hostpathprovisioner.ValidatingWebhook(w.clientConfig)}
		if err := applyValidating(ctx, c, platform.HPPValidatorName, hooks); err != nil {
			return err
		}
	}
	if !w.virtAPI {
		return nil
	}
	if err := applyValidating(ctx, c, platform.VirtAPIValidatorName, w.validating(false, true)); err != nil {
		return err
	}
	return applyMutating(ctx, c, platform.MutatingConfigName, w.mutating())
}

// applyHCO writes hco-webhook's configurations and the namespace policy
// hco-operator keeps upstream.
func (w *webhookSet) applyHCO(ctx context.Context, c client.Client) error {
	if err := applyValidating(ctx, c, platform.WebhookConfigName, w.validating(true, false)); err != nil {
		return err
	}
	if err := applyMutating(ctx, c, platform.HCOMutatingConfigName, hyperconverged.MutatingWebhooks(w.clientConfig, platform.Namespace)); err != nil {
		return err
	}
	policy, binding, err := hyperconverged.NamespacePolicy(ctx, c, platform.Namespace)
	if err != nil {
		return err
	}
	for _, want := range []client.Object{policy, binding} {
		if err := applyObject(ctx, c, want); err != nil {
			return err
		}
	}
	return nil
}

func applyMutating(ctx context.Context, c client.Client, name string, hooks []admissionregistrationv1.MutatingWebhook) error {
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := controllerutil.CreateOrUpdate(ctx, c, cfg, func() error {
		cfg.Webhooks = hooks
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing MutatingWebhookConfiguration %s: %w", name, err)
	}
	return nil
}

// applyObject server-side applies obj as hco-operator does.
func applyObject(ctx context.Context, c client.Client, obj client.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("converting %s: %w", obj.GetName(), err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if err := c.Patch(ctx, u, client.Apply, client.FieldOwner("hco-operator"), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

func applyValidating(ctx context.Context, c client.Client, name string, hooks []admissionregistrationv1.ValidatingWebhook) error {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := controllerutil.CreateOrUpdate(ctx, c, cfg, func() error {
		cfg.Webhooks = hooks
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing ValidatingWebhookConfiguration %s: %w", name, err)
	}
	return nil
}

// rotate renews the certificates before they expire; the server reloads
// the files itself, and a new CA is pushed into the configuration.
func (w *webhookSet) rotate(ctx context.Context, c client.Client) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		bundle, changed, err := webhookcert.Ensure(w.certDir, []string{"127.0.0.1", "localhost"}, webhookcert.DefaultPolicy, time.Now())
		if err != nil {
			log.FromContext(ctx).Error(err, "rotating hco-webhook certificates")
			continue
		}
		if changed && !webhookcert.SameBundle(bundle, w.bundle) {
			w.bundle = bundle
			if err := w.apply(ctx, c); err != nil {
				log.FromContext(ctx).Error(err, "publishing rotated hco-webhook CA")
			}
		}
	}
}
