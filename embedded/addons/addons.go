// Package addons are the embedded node's cluster add-ons, which a cluster
// brings itself: cluster DNS (CoreDNS) and an OCI registry (distribution).
// Each is built from its Go module into the cache, packed as an image on
// this machine, imported into the node and run as a Deployment in
// kube-system from a manifest in deploy/embedded.
package addons

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/kube/rollout"
)

// Addon is one add-on.
type Addon struct {
	// Name is its Deployment's name in kube-system.
	Name string
	// Image is imported into the node before Install.
	Image images.Image
	// manifest returns the YAML, with placeholders in capitals.
	manifest func() ([]byte, error)
	// values replace the placeholders.
	values map[string]string
}

// Install applies the add-on's manifest.
func (a Addon) Install(ctx context.Context, c client.Client) error {
	manifest, err := a.manifest()
	if err != nil {
		return err
	}
	for placeholder, value := range a.values {
		manifest = bytes.ReplaceAll(manifest, []byte(placeholder), []byte(value))
	}
	if _, err := apply.Manifests(ctx, c, manifest, "virtflow"); err != nil {
		return fmt.Errorf("installing %s: %w", a.Name, err)
	}
	return nil
}

// WaitReady waits until the add-on's pod is Ready by its own readiness
// probe.
func (a Addon) WaitReady(ctx context.Context, c client.Client) error {
	return rollout.Deployment(ctx, c, client.ObjectKey{Namespace: "kube-system", Name: a.Name}, 3*time.Minute)
}

// InstallAll applies every add-on, then waits until each is Ready: they
// start in parallel.
func InstallAll(ctx context.Context, c client.Client, all ...Addon) error {
	for _, a := range all {
		if err := a.Install(ctx, c); err != nil {
			return err
		}
	}
	for _, a := range all {
		if err := a.WaitReady(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
