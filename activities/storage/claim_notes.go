package storage

import (
	"context"
	"encoding/json"

	"go.temporal.io/sdk/activity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// claimNotes writes what cdi-uploadproxy routes by onto the claim an
// upload fills: its server's address. Status does not come from here (the
// activities report to their workflow, whose memo the reconcilers read);
// cleanup also removes the progress and attempt notes earlier builds
// wrote. A failed write is logged, and the workflow's outcome still
// decides the DataVolume's phase.
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

// clear removes every note, those of earlier builds included.
func (n *claimNotes) clear(ctx context.Context) {
	n.set(ctx, map[string]*string{cdi.AnnProgress: nil, cdi.AnnAttempt: nil, cdi.AnnUploadServer: nil})
}
