package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/hostpathvolume"
)

// fillKind is how a workflow fills a claim by; a DataVolume's spec says
// which one its workflow is, the import populator only imports.
type fillKind int

const (
	fillImport fillKind = iota
	fillUpload
	fillClone
	// fillAny is cleanup, which every fill's workflow runs.
	fillAny
)

// target is a disk activity's volume as the cluster says it is: its
// directory on this node, its claim, and whom the claim is filled for (a
// DataVolume, or the claim the import populator fills through this one,
// its prime).
type target struct {
	dir       string
	claim     *corev1.PersistentVolumeClaim
	dv        *cdiv1.DataVolume
	populated *corev1.PersistentVolumeClaim
}

// request is what a disk activity's input says of its target: none of it
// is taken on trust.
type request struct {
	namespace, claim, key, dir string
	size                       int64
}

func requestOf(req cdi.ImportRequest) request {
	return request{namespace: req.Namespace, claim: req.Claim, key: req.Key, dir: req.VolumeDir, size: req.Size}
}

// mismatch is a refusal: the input is not what the cluster says, and no
// retry will make it so.
func mismatch(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), cdi.ErrTypeVolumeMismatch, nil)
}

// resolveTarget finds the volume a disk activity may write from the
// cluster: the request's claim, controlled by the DataVolume (or populated
// claim) whose UID is the request's key, run by that owner's own workflow,
// bound to a hostpath volume of this node. A directory or size the request
// gives that the cluster does not bear out is refused.
func (a *Activities) resolveTarget(ctx context.Context, f fillKind, r request) (target, error) {
	if a.Client == nil {
		return target{}, errors.New("the node worker has no Kubernetes client to find volumes with")
	}
	if r.namespace == "" || r.claim == "" || r.key == "" {
		return target{}, mismatch("the request names no claim to fill (namespace %q, claim %q, key %q)", r.namespace, r.claim, r.key)
	}
	claim := &corev1.PersistentVolumeClaim{}
	if err := a.get(ctx, types.NamespacedName{Namespace: r.namespace, Name: r.claim}, claim, "claim"); err != nil {
		return target{}, err
	}
	t, err := a.ownerOf(ctx, claim, r.key)
	if err != nil {
		return target{}, err
	}
	if err := a.checkExecution(ctx, f, t); err != nil {
		return target{}, err
	}
	pv, err := a.boundVolume(ctx, claim)
	if err != nil {
		return target{}, err
	}
	if t.dir, err = a.volumeDir(pv); err != nil {
		return target{}, err
	}
	if r.dir != "" && filepath.Clean(r.dir) != t.dir {
		return target{}, mismatch("the request's volume directory %s is not claim %s/%s's, %s", r.dir, claim.Namespace, claim.Name, t.dir)
	}
	if capacity := pv.Spec.Capacity[corev1.ResourceStorage]; r.size > capacity.Value() {
		return target{}, mismatch("the request's size %d exceeds the %d bytes of volume %s", r.size, capacity.Value(), pv.Name)
	}
	return t, nil
}

// get reads an object; one that does not exist is a refusal, a failure to
// read it is retried.
func (a *Activities) get(ctx context.Context, key types.NamespacedName, obj client.Object, what string) error {
	err := a.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return mismatch("%s %s does not exist", what, key)
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", what, key, err)
	}
	return nil
}

// ownerOf is whom the claim is filled for, which must be whom the
// request's key names: the DataVolume that controls the claim of its own
// name, or the claim whose prime it is.
func (a *Activities) ownerOf(ctx context.Context, claim *corev1.PersistentVolumeClaim, key string) (target, error) {
	ref := metav1.GetControllerOf(claim)
	if ref == nil {
		return target{}, mismatch("claim %s/%s is controlled by no DataVolume and by no claim of the import populator", claim.Namespace, claim.Name)
	}
	group, err := groupOf(ref.APIVersion)
	switch {
	case err == nil && ref.Kind == "DataVolume" && group == cdiv1.SchemeGroupVersion.Group:
		return a.dataVolumeOwner(ctx, claim, ref, key)
	case err == nil && ref.Kind == "PersistentVolumeClaim" && group == corev1.GroupName:
		return a.populatorOwner(ctx, claim, ref, key)
	}
	return target{}, mismatch("claim %s/%s is controlled by %s %s, not by a DataVolume or the import populator", claim.Namespace, claim.Name, ref.Kind, ref.Name)
}

// groupOf is the API group of an apiVersion.
func groupOf(apiVersion string) (string, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return gv.Group, err
}

// dataVolumeOwner checks that the claim is the one CDI creates for the
// DataVolume the key names: same name and namespace, controlled by it.
func (a *Activities) dataVolumeOwner(ctx context.Context, claim *corev1.PersistentVolumeClaim, ref *metav1.OwnerReference, key string) (target, error) {
	if ref.Name != claim.Name {
		return target{}, mismatch("claim %s/%s is not named after its DataVolume %s", claim.Namespace, claim.Name, ref.Name)
	}
	dv := &cdiv1.DataVolume{}
	if err := a.get(ctx, types.NamespacedName{Namespace: claim.Namespace, Name: ref.Name}, dv, "DataVolume"); err != nil {
		return target{}, err
	}
	if dv.UID != ref.UID {
		return target{}, mismatch("DataVolume %s/%s (UID %s) is not the owner of claim %s (UID %s)", dv.Namespace, dv.Name, dv.UID, claim.Name, ref.UID)
	}
	if string(dv.UID) != key {
		return target{}, mismatch("the request is for UID %s, not for DataVolume %s/%s (UID %s)", key, dv.Namespace, dv.Name, dv.UID)
	}
	return target{claim: claim, dv: dv}, nil
}

// populatorOwner checks that the claim is the prime the import populator
// creates for the claim the key names: named after its UID, controlled by
// it, and that claim asks the populator to import.
func (a *Activities) populatorOwner(ctx context.Context, claim *corev1.PersistentVolumeClaim, ref *metav1.OwnerReference, key string) (target, error) {
	if claim.Name != primeName(ref.UID) {
		return target{}, mismatch("claim %s/%s is not the import populator's claim for %s", claim.Namespace, claim.Name, ref.Name)
	}
	populated := &corev1.PersistentVolumeClaim{}
	if err := a.get(ctx, types.NamespacedName{Namespace: claim.Namespace, Name: ref.Name}, populated, "claim"); err != nil {
		return target{}, err
	}
	if populated.UID != ref.UID || string(populated.UID) != key {
		return target{}, mismatch("claim %s/%s (UID %s) is not the one the request (UID %s) and prime %s name", populated.Namespace, populated.Name, populated.UID, key, claim.Name)
	}
	if !importsByPopulator(populated) {
		return target{}, mismatch("claim %s/%s does not ask the import populator to fill it", populated.Namespace, populated.Name)
	}
	return target{claim: claim, populated: populated}, nil
}

// primeName is the import populator's name for the claim it fills in the
// place of the claim of UID uid, as CDI names it.
func primeName(uid types.UID) string { return "prime-" + string(uid) }

// importsByPopulator tells whether the claim's dataSourceRef is a
// VolumeImportSource of its own namespace.
func importsByPopulator(pvc *corev1.PersistentVolumeClaim) bool {
	ref := pvc.Spec.DataSourceRef
	return ref != nil && ref.APIGroup != nil && *ref.APIGroup == cdiv1.SchemeGroupVersion.Group &&
		ref.Kind == cdiv1.VolumeImportSourceRef && ref.Name != "" && ref.Namespace == nil
}

// checkExecution requires the activity to run in its owner's own workflow
// (the ID its reconciler starts it under) and to be the fill that
// workflow does.
func (a *Activities) checkExecution(ctx context.Context, f fillKind, t target) error {
	want, id, owner := t.fill(), t.workflowID(), t.owner()
	if f != fillAny && f != want {
		return mismatch("%s is not filled by this activity", owner)
	}
	if got := a.execution(ctx); got != id {
		return mismatch("the activity runs in workflow %s, not in %s, the workflow of %s", got, id, owner)
	}
	return nil
}

// execution is the workflow the activity runs in.
func (a *Activities) execution(ctx context.Context) string {
	if a.executionID != nil {
		return a.executionID(ctx)
	}
	return activity.GetInfo(ctx).WorkflowExecution.ID
}

func (t target) fill() fillKind {
	switch {
	case t.dv == nil:
		return fillImport
	case isCloneDV(t.dv):
		return fillClone
	case t.dv.Spec.Source != nil && t.dv.Spec.Source.Upload != nil:
		return fillUpload
	}
	return fillImport
}

func (t target) workflowID() string {
	if t.dv == nil {
		return cdi.ImportWorkflowID(string(t.populated.UID))
	}
	switch t.fill() {
	case fillClone:
		return cdi.CloneWorkflowID(string(t.dv.UID))
	case fillUpload:
		return cdi.UploadWorkflowID(string(t.dv.UID))
	}
	return cdi.ImportWorkflowID(string(t.dv.UID))
}

func (t target) owner() string {
	if t.dv == nil {
		return "claim " + t.populated.Namespace + "/" + t.populated.Name
	}
	return "DataVolume " + t.dv.Namespace + "/" + t.dv.Name
}

// isCloneDV tells whether the DataVolume copies a claim, named directly or
// through a DataSource.
func isCloneDV(dv *cdiv1.DataVolume) bool {
	return (dv.Spec.Source != nil && dv.Spec.Source.PVC != nil) || dv.Spec.SourceRef != nil
}

// boundVolume is the PersistentVolume the claim is bound to, which must
// be bound to it in turn.
func (a *Activities) boundVolume(ctx context.Context, claim *corev1.PersistentVolumeClaim) (*corev1.PersistentVolume, error) {
	if claim.Status.Phase != corev1.ClaimBound || claim.Spec.VolumeName == "" {
		return nil, mismatch("claim %s/%s is not bound", claim.Namespace, claim.Name)
	}
	pv := &corev1.PersistentVolume{}
	if err := a.get(ctx, types.NamespacedName{Name: claim.Spec.VolumeName}, pv, "volume"); err != nil {
		return nil, err
	}
	ref := pv.Spec.ClaimRef
	if ref == nil || ref.Namespace != claim.Namespace || ref.Name != claim.Name || ref.UID != claim.UID {
		return nil, mismatch("volume %s is not bound to claim %s/%s", pv.Name, claim.Namespace, claim.Name)
	}
	return pv, nil
}

// volumeDir is the volume's directory on this node, under its hostpath
// root.
func (a *Activities) volumeDir(pv *corev1.PersistentVolume) (string, error) {
	root := a.HostRoot
	if root == "" {
		root = "/"
	}
	dir, err := hostpathvolume.Dir(pv, a.NodeName, root)
	if err != nil {
		return "", mismatch("%s", err.Error())
	}
	return dir, nil
}
