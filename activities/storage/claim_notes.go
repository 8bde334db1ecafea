package storage

import (
	"context"
	"encoding/json"
	"strconv"

	"go.temporal.io/sdk/activity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// claimNotes writes a disk activity's state onto the claim it fills: the
// DataVolume reconciler watches claims, so the write is what tells it of a
// new attempt, a copy's progress or a listening upload server, the way
// CDI's importer pods tell CDI's controller through claim annotations.
// They are notes, not the record: a failed write is logged, and the
// workflow's outcome still decides the DataVolume's phase.
type claimNotes struct {
	c   client.Client
	key types.NamespacedName
}

// claimNotes is nil, and writes nothing, for a request that names no claim
// (histories recorded before requests named one).
func (a *Activities) claimNotes(namespace, claim string) *claimNotes {
	if a.Client == nil || claim == "" {
		return nil
	}
	return &claimNotes{c: a.Client, key: types.NamespacedName{Namespace: namespace, Name: claim}}
}

// started notes the attempt now running: above 1, the previous one failed
// and the reconciler shows why.
func (n *claimNotes) started(ctx context.Context) {
	attempt := strconv.Itoa(int(activity.GetInfo(ctx).Attempt))
	n.set(ctx, map[string]*string{cdi.AnnAttempt: &attempt})
}

// set merges the annotations; a nil value removes one.
func (n *claimNotes) set(ctx context.Context, values map[string]*string) {
	if n == nil {
		return
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": values}})
	if err == nil {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: n.key.Namespace, Name: n.key.Name}}
		err = n.c.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, patch))
	}
	if err != nil {
		activity.GetLogger(ctx).Warn("annotating the claim", "claim", n.key.String(), "error", err)
	}
}

// clear removes every note.
func (n *claimNotes) clear(ctx context.Context) {
	n.set(ctx, map[string]*string{cdi.AnnProgress: nil, cdi.AnnAttempt: nil, cdi.AnnUploadServer: nil})
}
