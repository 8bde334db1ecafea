package handler

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// leaseNamespace holds node heartbeats, as for kubelets.
const leaseNamespace = "kube-node-lease"

// nodeKeeper registers a simulated Node and keeps it Ready by renewing its
// Lease and heartbeat, so the node lifecycle controller never taints it. A
// real node's kubelet does all that; the keeper only labels it.
type nodeKeeper struct {
	c   client.Client
	cfg Config
	// api's port is published as the node's daemon endpoint.
	api *apiServer
}

// Start implements manager.Runnable.
// Registration is retried rather than returned: an error from a runnable
// would stop the whole manager over what is usually a conflict with the
// node lifecycle controller writing the same Node.
func (n *nodeKeeper) Start(ctx context.Context) error {
	for {
		err := retry.RetryOnConflict(retry.DefaultBackoff, func() error { return n.register(ctx) })
		if err == nil {
			break
		}
		log.FromContext(ctx).Error(err, "registering node", "node", n.cfg.NodeName)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
	if n.cfg.KubeletRoot != "" {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := retry.RetryOnConflict(retry.DefaultBackoff, func() error { return n.heartbeat(ctx) }); err != nil {
			log.FromContext(ctx).Error(err, "node heartbeat", "node", n.cfg.NodeName)
		}
	}
}

func (n *nodeKeeper) register(ctx context.Context) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.cfg.NodeName}}
	err := n.c.Get(ctx, types.NamespacedName{Name: n.cfg.NodeName}, node)
	if apierrors.IsNotFound(err) && n.cfg.KubeletRoot == "" {
		err = n.c.Create(ctx, node)
	}
	if err != nil {
		return fmt.Errorf("registering node %s: %w", n.cfg.NodeName, err)
	}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	for k, v := range map[string]string{
		"kubernetes.io/hostname": n.cfg.NodeName, "kubernetes.io/os": "linux", "kubernetes.io/arch": runtime.GOARCH,
		kubevirtv1.NodeSchedulable: "true",
	} {
		node.Labels[k] = v
	}
	if err := n.c.Update(ctx, node); err != nil {
		return fmt.Errorf("labelling node %s: %w", n.cfg.NodeName, err)
	}
	if n.cfg.KubeletRoot != "" {
		return nil
	}
	return n.heartbeat(ctx)
}

func (n *nodeKeeper) heartbeat(ctx context.Context) error {
	node := &corev1.Node{}
	if err := n.c.Get(ctx, types.NamespacedName{Name: n.cfg.NodeName}, node); err != nil {
		return fmt.Errorf("reading node %s: %w", n.cfg.NodeName, err)
	}
	now := metav1.Now()
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memTotal(), resource.BinarySI),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	for k, v := range n.cfg.Capacity {
		capacity[k] = v
	}
	node.Status.Capacity, node.Status.Allocatable = capacity, capacity
	node.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: n.cfg.NodeIP}, {Type: corev1.NodeHostName, Address: n.cfg.NodeName},
	}
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "VirtHandlerReady",
		Message: "virt-handler is running launchers on this node", LastHeartbeatTime: now, LastTransitionTime: readySince(node, now),
	}}
	node.Status.NodeInfo.KubeletVersion = "virtflow"
	if n.api != nil && n.api.port != 0 {
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(n.api.port)
	}
	node.Status.NodeInfo.Architecture, node.Status.NodeInfo.OperatingSystem = runtime.GOARCH, "linux"
	if err := n.c.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("updating node %s status: %w", n.cfg.NodeName, err)
	}
	return n.renewLease(ctx)
}

func readySince(node *corev1.Node, now metav1.Time) metav1.Time {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime
		}
	}
	return now
}

func (n *nodeKeeper) renewLease(ctx context.Context) error {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: n.cfg.NodeName}}
	err := n.c.Get(ctx, client.ObjectKeyFromObject(lease), lease)
	holder, seconds := n.cfg.NodeName, int32(40)
	now := metav1.NewMicroTime(time.Now())
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds, lease.Spec.RenewTime = &holder, &seconds, &now
	if apierrors.IsNotFound(err) {
		err = n.c.Create(ctx, lease)
	} else if err == nil {
		err = n.c.Update(ctx, lease)
	}
	if err != nil {
		return fmt.Errorf("renewing node lease %s: %w", n.cfg.NodeName, err)
	}
	return nil
}

func memTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
