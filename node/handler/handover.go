package handler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/kube/vmivolumes"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// handOver gives the launcher in a pod the kubelet runs its VMI: the
// launcher waits for config.json in its private volume, which the kubelet
// creates on the node before it starts the container.
func (r *podReconciler) handOver(ctx context.Context, pod *corev1.Pod) (ctrl.Result, error) {
	if pod.Labels[kubevirtv1.AppLabel] != "virt-launcher" {
		return ctrl.Result{}, nil
	}
	l := r.cfg.locate(pod)
	if pod.DeletionTimestamp != nil {
		r.passGracePeriod(ctx, pod, l.dir)
		return ctrl.Result{}, nil
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return ctrl.Result{}, nil
	}
	if _, err := os.Stat(filepath.Join(l.dir, launcher.ConfigFile)); err == nil {
		return ctrl.Result{}, nil
	}
	if st, err := launcher.ReadStatus(l.dir); err == nil && st.Exited {
		// A launch this agent could not prepare has failed for good.
		return ctrl.Result{}, nil
	}
	if _, err := os.Stat(l.dir); errors.Is(err, os.ErrNotExist) {
		// The kubelet has not set the pod's volumes up yet.
		return ctrl.Result{RequeueAfter: 300 * time.Millisecond}, nil
	}
	if pod.Labels[kubevirtv1.MigrationJobLabel] != "" {
		// A migration's target gets the VMI from the migration, as an
		// incoming domain: started here, it would be a second guest.
		return ctrl.Result{}, nil
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Annotations[kubevirtv1.DomainAnnotation]}
	if err := r.c.Get(ctx, key, vmi); err != nil {
		return ctrl.Result{}, fmt.Errorf("reading VirtualMachineInstance %s: %w", key, err)
	}
	cfg, err := r.launchConfig(ctx, vmi, pod)
	switch {
	case errors.Is(err, errVolumesNotReady):
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	case errors.Is(err, errSandboxNotReady):
		return ctrl.Result{RequeueAfter: 300 * time.Millisecond}, nil
	case errors.As(err, new(networkError)):
		return ctrl.Result{}, r.failLaunch(ctx, l, vmi, err)
	case err != nil:
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, launcher.WriteConfigAt(l.dir, cfg)
}

// networkError is a pod network the agent could not prepare: no retry
// changes the VMI's interfaces. It reads as its cause.
type networkError struct{ error }

func (e networkError) Unwrap() error { return e.error }

// launchConfig readies the node for the VMI's launcher in pod (its claims'
// disks handed to the launcher's user, the pod's network prepared) and
// returns the launcher's configuration.
func (r *podReconciler) launchConfig(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) (launcher.Config, error) {
	if err := dataVolumesReady(ctx, r.c, vmi); err != nil {
		return launcher.Config{}, err
	}
	if err := r.handClaimsTo(ctx, vmi); err != nil {
		return launcher.Config{}, err
	}
	plan, err := r.connectNetwork(ctx, vmi, pod)
	if errors.Is(err, errSandboxNotReady) {
		return launcher.Config{}, err
	} else if err != nil {
		return launcher.Config{}, networkError{err}
	}
	return launcher.Config{
		VMI: *vmi, Dir: launcherpod.PrivateDir, DomainType: r.cfg.DomainType, UID: r.cfg.UID, GID: r.cfg.GID,
		CacheDir: launcherpod.CacheDir, PVCPaths: podClaimPaths(vmi, pod), Pod: true, Network: plan,
	}, nil
}

// handClaimsTo gives the launcher's user the disk images of the VMI's
// filesystem claims, as upstream's virt-handler does for non-root
// launchers: an import or upload wrote them as root.
func (r *podReconciler) handClaimsTo(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) error {
	paths, err := resolveClaims(ctx, r.c, vmi)
	if err != nil {
		return err
	}
	for claim, p := range paths {
		if p.Block {
			continue
		}
		img := p.Path
		if st, err := os.Stat(img); err == nil && st.IsDir() {
			img = filepath.Join(img, "disk.img")
		}
		if err := os.Chown(img, r.cfg.UID, r.cfg.GID); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("handing the disk of claim %s to uid %d: %w", claim, r.cfg.UID, err)
		}
	}
	return nil
}

// podClaimPaths are where the kubelet put the VMI's claims in the pod:
// block claims as devices, filesystem claims as mounts.
func podClaimPaths(vmi *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) map[string]launcher.PVCPath {
	devices := map[string]bool{}
	for _, c := range pod.Spec.Containers {
		for _, d := range c.VolumeDevices {
			devices[d.Name] = true
		}
	}
	out := map[string]launcher.PVCPath{}
	for _, v := range vmi.Spec.Volumes {
		claim := vmivolumes.ClaimName(v)
		if claim == "" {
			continue
		}
		if devices[v.Name] {
			out[claim] = launcher.PVCPath{Path: launcherpod.ClaimDevice(v.Name), Block: true}
		} else {
			out[claim] = launcher.PVCPath{Path: launcherpod.ClaimDir(v.Name)}
		}
	}
	return out
}
