package handler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/launcher"
)

// LauncherDiedMessage explains a launcher pod or VMI whose launcher was
// killed or crashed.
const LauncherDiedMessage = "virt-launcher exited unexpectedly"

// podReconciler runs the launcher pods bound to this node.
type podReconciler struct {
	c   client.Client
	cfg Config
}

func (r *podReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &corev1.Pod{}
	if err := r.c.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pod.Spec.NodeName != r.cfg.NodeName {
		return ctrl.Result{}, nil
	}
	if r.cfg.KubeletRoot != "" {
		return r.handOver(ctx, pod)
	}
	dir := r.cfg.podDir(pod.Namespace, pod.Name)
	if _, binder := pod.Labels[binderLabel]; binder {
		// A DataVolume's binder pod only exists to be scheduled.
		return ctrl.Result{}, nil
	}
	if pod.Labels[kubevirtv1.AppLabel] != "virt-launcher" {
		return ctrl.Result{}, r.setPhase(ctx, pod, corev1.PodFailed, "virtflow's node agent runs only virt-launcher pods")
	}
	if pod.DeletionTimestamp != nil {
		return r.stop(ctx, pod, dir)
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return ctrl.Result{}, nil
	}
	if _, running := launcherPID(dir); running {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, r.setRunning(ctx, pod)
	}
	if st, err := launcher.ReadStatus(dir); err == nil && st.Exited {
		if st.Message != "" {
			return ctrl.Result{}, r.setPhase(ctx, pod, corev1.PodFailed, st.Message)
		}
		return ctrl.Result{}, r.setPhase(ctx, pod, corev1.PodSucceeded, "the guest shut down")
	}
	if pod.Status.Phase == corev1.PodRunning {
		reapOrphans(dir)
		return ctrl.Result{}, r.setPhase(ctx, pod, corev1.PodFailed, LauncherDiedMessage)
	}
	if err := r.launch(ctx, pod, dir); errors.Is(err, errVolumesNotReady) {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	} else if err != nil {
		return ctrl.Result{}, r.setPhase(ctx, pod, corev1.PodFailed, err.Error())
	}
	return ctrl.Result{RequeueAfter: 2 * time.Second}, r.setRunning(ctx, pod)
}

func (r *podReconciler) launch(ctx context.Context, pod *corev1.Pod, dir string) error {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Annotations[kubevirtv1.DomainAnnotation]}
	if err := r.c.Get(ctx, key, vmi); err != nil {
		return fmt.Errorf("reading VirtualMachineInstance %s: %w", key, err)
	}
	if err := dataVolumesReady(ctx, r.c, vmi); err != nil {
		return err
	}
	paths, err := resolveClaims(ctx, r.c, vmi)
	if err != nil {
		return err
	}
	cfg := launcher.Config{
		VMI: *vmi, Dir: dir, DomainType: r.cfg.DomainType, UID: r.cfg.UID, GID: r.cfg.GID,
		CacheDir: r.cfg.cacheDir(), ImageStore: r.cfg.ImageStore, PVCPaths: paths,
	}
	if err := launcher.WriteConfig(cfg); err != nil {
		return err
	}
	_, err = startLauncher(r.cfg.LauncherCommand, dir)
	return err
}

// stop terminates the launcher (the guest gets its grace period) and then
// finishes the pod's deletion, as a kubelet does.
func (r *podReconciler) stop(ctx context.Context, pod *corev1.Pod, dir string) (ctrl.Result, error) {
	if _, running := launcherPID(dir); running {
		r.passGracePeriod(ctx, pod, dir)
		signalLauncher(dir, syscall.SIGTERM)
		return ctrl.Result{RequeueAfter: 500 * time.Millisecond}, nil
	}
	reapOrphans(dir)
	if err := r.c.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("removing pod %s: %w", pod.Name, err)
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ctrl.Result{}, fmt.Errorf("cleaning launcher directory %s: %w", dir, err)
	}
	return ctrl.Result{}, nil
}

func (r *podReconciler) setRunning(ctx context.Context, pod *corev1.Pod) error {
	if pod.Status.Phase == corev1.PodRunning {
		return nil
	}
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.HostIP, pod.Status.PodIP = r.cfg.NodeIP, r.cfg.NodeIP
	pod.Status.PodIPs = []corev1.PodIP{{IP: r.cfg.NodeIP}}
	pod.Status.StartTime = &now
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "compute", Image: pod.Spec.Containers[0].Image, Ready: true, Started: new(bool),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
	}}
	*pod.Status.ContainerStatuses[0].Started = true
	return r.updateStatus(ctx, pod)
}

func (r *podReconciler) setPhase(ctx context.Context, pod *corev1.Pod, phase corev1.PodPhase, msg string) error {
	if pod.Status.Phase == phase {
		return nil
	}
	pod.Status.Phase, pod.Status.Message = phase, msg
	exit := int32(0)
	if phase == corev1.PodFailed {
		exit = 1
	}
	for i := range pod.Status.ContainerStatuses {
		pod.Status.ContainerStatuses[i].Ready = false
		pod.Status.ContainerStatuses[i].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: exit, Message: msg, FinishedAt: metav1.Now(),
		}}
	}
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady || pod.Status.Conditions[i].Type == corev1.ContainersReady {
			pod.Status.Conditions[i].Status = corev1.ConditionFalse
		}
	}
	return r.updateStatus(ctx, pod)
}

func (r *podReconciler) updateStatus(ctx context.Context, pod *corev1.Pod) error {
	if err := r.c.Status().Update(ctx, pod); err != nil {
		return fmt.Errorf("updating pod %s status: %w", pod.Name, err)
	}
	return nil
}

// passGracePeriod hands the launcher the VMI's current grace period, which
// `virtctl stop --force --grace-period` may have shortened after launch.
func (r *podReconciler) passGracePeriod(ctx context.Context, pod *corev1.Pod, dir string) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Annotations[kubevirtv1.DomainAnnotation]}
	if err := r.c.Get(ctx, key, vmi); err != nil || vmi.Spec.TerminationGracePeriodSeconds == nil {
		return
	}
	_ = launcher.WriteGracePeriod(dir, *vmi.Spec.TerminationGracePeriodSeconds)
}
