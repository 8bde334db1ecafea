// Package addons are the embedded node's cluster add-ons, which a cluster
// brings itself: cluster DNS (CoreDNS) and an OCI registry (distribution).
// Each is built from its Go module into the cache, packed as an image on
// this machine, imported into the node and run in kube-system from a
// manifest in deploy/embedded: DNS as a Deployment, the registry as a
// DaemonSet on its node.
package addons

import (
	"bytes"
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/kube/rollout"
)

// Addon is one add-on.
type Addon struct {
	// Name is its workload's name in kube-system.
	Name string
	// daemonSet says the workload is a DaemonSet, not a Deployment.
	daemonSet bool
	// replaces is an object an earlier release made for the add-on, which
	// its workload now replaces: Install deletes it first.
	replaces client.Object
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
	if err := a.removeFormer(ctx, c); err != nil {
		return err
	}
	if _, err := apply.Manifests(ctx, c, manifest, "virtflow"); err != nil {
		return fmt.Errorf("installing %s: %w", a.Name, err)
	}
	return nil
}

// removeFormer deletes what the add-on's workload replaces and waits until
// its pods are gone too (foreground deletion keeps the object until then):
// they hold the node's ports and storage the new pod needs.
func (a Addon) removeFormer(ctx context.Context, c client.Client) error {
	if a.replaces == nil {
		return nil
	}
	key := client.ObjectKeyFromObject(a.replaces)
	err := c.Delete(ctx, a.replaces, client.PropagationPolicy(metav1.DeletePropagationForeground))
	for deadline := time.Now().Add(2 * time.Minute); err == nil; {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s's former %T %s is still there after 2m", a.Name, a.replaces, key)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		err = c.Get(ctx, key, a.replaces)
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing %s's former %T %s: %w", a.Name, a.replaces, key, err)
	}
	return nil
}

// WaitReady waits until the add-on's pod is Ready by its own readiness
// probe.
func (a Addon) WaitReady(ctx context.Context, c client.Client) error {
	key := client.ObjectKey{Namespace: "kube-system", Name: a.Name}
	if a.daemonSet {
		return rollout.DaemonSet(ctx, c, key, 3*time.Minute)
	}
	return rollout.Deployment(ctx, c, key, 3*time.Minute)
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
