package hostpath

import (
	"context"
	"fmt"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/csi"
)

// Annotations of dynamic provisioning, as the external-provisioner and
// the scheduler write them.
const (
	AnnSelectedNode  = "volume.kubernetes.io/selected-node"
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
)

// provisioner creates a volume for each claim of a hostpath class that the
// scheduler placed on this node, as the external-provisioner does in its
// per-node deployment: only WaitForFirstConsumer classes work, because
// only a scheduled consumer says which node's disk to use.
type provisioner struct {
	c        client.Client
	cfg      Config
	recorder record.EventRecorder
}

func (p *provisioner) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := p.c.Get(ctx, req.NamespacedName, pvc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil || pvc.Annotations[AnnSelectedNode] != p.cfg.NodeName {
		return ctrl.Result{}, nil
	}
	if populated(pvc) {
		return ctrl.Result{}, nil
	}
	sc, ok, err := p.class(ctx, pvc)
	if err != nil || !ok {
		return ctrl.Result{}, err
	}
	pv, err := p.provision(ctx, pvc, sc)
	if err != nil {
		p.recorder.Eventf(pvc, corev1.EventTypeWarning, "ProvisioningFailed", "failed to provision volume with StorageClass %q: %v", sc.Name, err)
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	if err := p.c.Create(ctx, pv); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("creating volume %s for claim %s/%s: %w", pv.Name, pvc.Namespace, pvc.Name, err)
	}
	p.recorder.Eventf(pvc, corev1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume %s", pv.Name)
	return ctrl.Result{}, nil
}

// class returns the claim's StorageClass when it is one of ours.
func (p *provisioner) class(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (*storagev1.StorageClass, bool, error) {
	if pvc.Spec.StorageClassName == nil {
		return nil, false, nil
	}
	sc := &storagev1.StorageClass{}
	if err := p.c.Get(ctx, types.NamespacedName{Name: *pvc.Spec.StorageClassName}, sc); err != nil {
		return nil, false, client.IgnoreNotFound(err)
	}
	return sc, sc.Provisioner == csi.DriverName, nil
}

// provision asks the node's CSI driver for the volume and describes it as
// a PersistentVolume pre-bound to the claim; kube-controller-manager
// completes the binding.
func (p *provisioner) provision(ctx context.Context, pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass) (*corev1.PersistentVolume, error) {
	name := "pvc-" + string(pvc.UID)
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	var resp *csipb.CreateVolumeResponse
	err := p.withController(ctx, func(cc csipb.ControllerClient) (err error) {
		resp, err = cc.CreateVolume(ctx, &csipb.CreateVolumeRequest{
			Name: name, Parameters: sc.Parameters,
			CapacityRange: &csipb.CapacityRange{RequiredBytes: size.Value()},
			VolumeCapabilities: []*csipb.VolumeCapability{{
				AccessType: &csipb.VolumeCapability_Mount{Mount: &csipb.VolumeCapability_MountVolume{}},
				AccessMode: &csipb.VolumeCapability_AccessMode{Mode: csipb.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
			}},
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return p.volume(pvc, sc, resp.GetVolume(), size), nil
}

func (p *provisioner) volume(pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, v *csipb.Volume, size resource.Quantity) *corev1.PersistentVolume {
	reclaim := corev1.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: v.GetVolumeId(), Annotations: map[string]string{AnnProvisionedBy: csi.DriverName}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes: pvc.Spec.AccessModes, VolumeMode: pvc.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: reclaim, StorageClassName: sc.Name, MountOptions: sc.MountOptions,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: csi.DriverName, VolumeHandle: v.GetVolumeId(), VolumeAttributes: v.GetVolumeContext(), FSType: "ext4",
			}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: csi.TopologyKey, Operator: corev1.NodeSelectorOpIn, Values: []string{p.cfg.NodeName}}},
			}}}},
		},
	}
}

// withController calls the node's CSI controller service over its socket.
func (p *provisioner) withController(ctx context.Context, call func(csipb.ControllerClient) error) error {
	conn, err := grpc.NewClient("unix://"+p.cfg.Socket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connecting to the CSI driver: %w", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return call(csipb.NewControllerClient(conn))
}

// populated tells whether a volume populator fills the claim (its
// dataSourceRef names a kind of an API group): the populator provisions a
// claim of its own and hands its volume over, as external-provisioner
// leaves such claims alone.
func populated(pvc *corev1.PersistentVolumeClaim) bool {
	ref := pvc.Spec.DataSourceRef
	return ref != nil && ref.APIGroup != nil && *ref.APIGroup != "" && *ref.APIGroup != "snapshot.storage.k8s.io"
}
