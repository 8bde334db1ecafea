// Package ipamcontroller is kubevirt-ipam-controller, as upstream's
// kubevirt/ipam-extensions: a VM whose network's
// NetworkAttachmentDefinition allows persistent IPs gets an IPAMClaim per
// such network, owned by the VM and held by a finalizer while it lives;
// its launcher pods name the claim in their Multus network selection
// elements (the pod webhook), so an IPAM plugin that honours claims gives
// every launcher of the VM the same addresses.
package ipamcontroller

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
)

// Finalizer keeps a VM's claims, and so its addresses, until the VM is
// deleted: stopping it deletes its VMI, never its claims. Upstream's.
const Finalizer = "kubevirt.io/persistent-ipam"

// maxNameLength is the longest object name Kubernetes takes.
const maxNameLength = 253

// nameUnit is upstream's pattern, kept as it is so that claim names are
// upstream's: it means to match whole subdomains, but its doubled escape
// asks for a backslash before the dot, so in practice it matches label
// after label, which ClaimName joins with dots.
var nameUnit = regexp.MustCompile(`[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`)

// ClaimName is the IPAMClaim of a VM's logical network: "<vm>.<network>",
// lowercased, with what a name may not hold dropped between labels.
func ClaimName(vm, network string) string {
	name := strings.Join(nameUnit.FindAllString(strings.ToLower(vm+"."+network), -1), ".")
	if len(name) > maxNameLength {
		name = name[:maxNameLength]
	}
	return name
}

// ownedBy selects the claims of a VM (or a VM-less VMI) by name.
func ownedBy(vm string) client.MatchingLabels {
	return client.MatchingLabels{kubevirtv1.VirtualMachineLabel: vm}
}

// releaseClaims removes the finalizer from the claims of the VM (or
// VMI) key, which the garbage collector then deletes with their owner.
func releaseClaims(ctx context.Context, c client.Client, key types.NamespacedName) error {
	claims := &ipamv1alpha1.IPAMClaimList{}
	if err := c.List(ctx, claims, client.InNamespace(key.Namespace), ownedBy(key.Name)); err != nil {
		return fmt.Errorf("failed removing the IPAMClaims finalizer: could not get list of IPAMClaims owned by VM %q: %w", key.String(), err)
	}
	for i := range claims.Items {
		claim := &claims.Items[i]
		if !controllerutil.RemoveFinalizer(claim, Finalizer) {
			continue
		}
		if err := c.Update(ctx, claim); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed removing the IPAMClaims finalizer: updating IPAMClaim %s/%s: %w", claim.Namespace, claim.Name, err)
		}
	}
	return nil
}

// CertDir is where the webhook's serving certificate is mounted, as
// upstream's pod mounts it.
const CertDir = "/tmp/k8s-webhook-server/serving-certs"
