package cdicron

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// RecordPoll annotates the cron with when it was polled and, when the
// source answered, the digest it found, as upstream's poller does; the
// cron's status.lastExecutionTimestamp follows the time. The write also
// wakes the cron's reconciler, which has no other way to learn that the
// schedule ran a poll that changed nothing.
func (a *Activities) RecordPoll(ctx context.Context, rec cdi.PollRecord) error {
	cron, err := a.cron(ctx, rec.Cron)
	if err != nil {
		return err
	}
	ann := map[string]string{cdi.AnnLastCronTime: rec.Time.UTC().Format(time.RFC3339)}
	if rec.Digest != "" {
		ann[cdi.AnnSourceDesiredDigest] = rec.Digest
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if err != nil {
		return fmt.Errorf("encoding the poll record: %w", err)
	}
	if err := a.Client.Patch(ctx, cron, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotating DataImportCron %s/%s: %w", cron.Namespace, cron.Name, err)
	}
	return nil
}
