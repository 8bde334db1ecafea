// Package clusterdns is the embedded node's cluster DNS: CoreDNS, built from
// its Go module into the cache, packed as an image on this machine and run
// as a Deployment behind the kube-dns Service, as kubeadm clusters run it.
package clusterdns

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/kube/apply"
)

// ImageRef is the name the image is imported under; the manifest uses it.
const ImageRef = "virtflow.local/coredns:1.15.0"

// Image packs the coredns binary found in binDir.
func Image(binDir string) images.Image {
	return images.Image{
		Ref:        ImageRef,
		Layers:     [][]images.Entry{{{Path: "/coredns", Source: filepath.Join(binDir, "coredns"), Mode: 0o755}}},
		Entrypoint: []string{"/coredns"}, User: "65532",
	}
}

// ServiceIP is the DNS Service's ClusterIP: the tenth address of the
// service range, as kubeadm picks it.
func ServiceIP(serviceCIDR string) (string, error) {
	prefix, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return "", fmt.Errorf("service range %q: %w", serviceCIDR, err)
	}
	ip := prefix.Masked().Addr()
	for range 10 {
		ip = ip.Next()
	}
	if !prefix.Contains(ip) {
		return "", fmt.Errorf("service range %s has no tenth address for DNS", serviceCIDR)
	}
	return ip.String(), nil
}

// Install applies the DNS add-on with its Service at serviceIP.
func Install(ctx context.Context, c client.Client, serviceIP string) error {
	manifest, err := deploy.ClusterDNS()
	if err != nil {
		return err
	}
	manifest = bytes.ReplaceAll(manifest, []byte("CLUSTER_DNS_IP"), []byte(serviceIP))
	if _, err := apply.Manifests(ctx, c, manifest, "virtflow"); err != nil {
		return fmt.Errorf("installing cluster DNS: %w", err)
	}
	return nil
}

// WaitReady waits until CoreDNS's pod is Ready (its own readiness probe).
func WaitReady(ctx context.Context, c client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	d := &appsv1.Deployment{}
	for {
		err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "coredns"}, d)
		if err == nil && d.Status.ReadyReplicas >= 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster DNS is not ready (%d ready replicas): %w", d.Status.ReadyReplicas, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
