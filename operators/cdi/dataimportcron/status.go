package dataimportcron

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operators/cdi/cdistatus"
)

// Condition reasons, as upstream CDI reports them.
const (
	ReasonNoImport    = "NoImport"
	ReasonNoDigest    = "NoDigest"
	ReasonOutdated    = "Outdated"
	ReasonProgressing = "ImportProgressing"
	ReasonUpToDate    = "UpToDate"
)

// Observed is the cluster and schedule state a cron's status is computed
// from.
type Observed struct {
	// DataVolumes are the cron's DataVolumes, newest first.
	DataVolumes []cdiv1.DataVolume
	// DataSource is the managed DataSource; nil when missing.
	DataSource *cdiv1.DataSource
	// LastExecution is when the schedule last started a poll.
	LastExecution *time.Time
	// LastPoll is the state of that poll.
	LastPoll workflowstate.State
}

// Status computes the cron's status; now stamps a newly imported PVC.
func Status(cron *cdiv1.DataImportCron, obs Observed, now time.Time) cdiv1.DataImportCronStatus {
	format := cdiv1.DataImportCronSourceFormatPvc
	st := cdiv1.DataImportCronStatus{SourceFormat: &format, LastImportTimestamp: cron.Status.LastImportTimestamp}
	if obs.LastExecution != nil {
		// Seconds, as the API stores them: a finer time would differ from
		// the stored one on every reconcile and be written again.
		st.LastExecutionTimestamp = &metav1.Time{Time: obs.LastExecution.Truncate(time.Second)}
	} else {
		st.LastExecutionTimestamp = cron.Status.LastExecutionTimestamp
	}
	if ds := obs.DataSource; ds != nil && ds.Spec.Source.PVC != nil {
		st.LastImportedPVC = ds.Spec.Source.PVC.DeepCopy()
		if old := cron.Status.LastImportedPVC; old == nil || *old != *st.LastImportedPVC || st.LastImportTimestamp == nil {
			st.LastImportTimestamp = &metav1.Time{Time: now.Truncate(time.Second)}
		}
	}
	var newest *cdiv1.DataVolume
	if len(obs.DataVolumes) > 0 {
		newest = &obs.DataVolumes[0]
		st.CurrentImports = []cdiv1.ImportStatus{{DataVolumeName: newest.Name, Digest: newest.Annotations[cdi.AnnSourceDesiredDigest]}}
	}
	progressing, upToDate := conditions(cron, newest, st.LastImportedPVC)
	if upToDate.Status != corev1.ConditionTrue && obs.LastPoll.Phase == workflowstate.Failed {
		upToDate.Message += "; last poll failed: " + obs.LastPoll.Message
	}
	st.Conditions = []cdiv1.DataImportCronCondition{progressing, upToDate}
	return st
}

// conditions are Progressing and UpToDate for the newest cron DataVolume
// and the PVC the DataSource serves.
func conditions(cron *cdiv1.DataImportCron, newest *cdiv1.DataVolume, served *cdiv1.DataVolumeSourcePVC) (cdiv1.DataImportCronCondition, cdiv1.DataImportCronCondition) {
	idle := cond(cdiv1.DataImportCronProgressing, corev1.ConditionFalse, ReasonNoImport, "No current import")
	if newest == nil {
		return idle, cond(cdiv1.DataImportCronUpToDate, corev1.ConditionFalse, ReasonNoDigest, "No source digest")
	}
	switch newest.Status.Phase {
	case cdiv1.Succeeded:
		if served != nil && served.Namespace == cron.Namespace && served.Name == newest.Name {
			return idle, cond(cdiv1.DataImportCronUpToDate, corev1.ConditionTrue, ReasonUpToDate, "Latest import is up to date")
		}
		return idle, cond(cdiv1.DataImportCronUpToDate, corev1.ConditionFalse, ReasonOutdated,
			fmt.Sprintf("DataSource %s does not serve the latest import %s yet", cron.Spec.ManagedDataSource, newest.Name))
	case cdiv1.Failed:
		msg := fmt.Sprintf("Import DataVolume phase %s", cdiv1.Failed)
		for _, c := range newest.Status.Conditions {
			if c.Type == cdiv1.DataVolumeRunning && c.Message != "" {
				msg += ": " + c.Message
			}
		}
		return cond(cdiv1.DataImportCronProgressing, corev1.ConditionFalse, string(cdiv1.Failed), msg),
			cond(cdiv1.DataImportCronUpToDate, corev1.ConditionFalse, ReasonOutdated, fmt.Sprintf("Latest import %s failed", newest.Name))
	}
	return cond(cdiv1.DataImportCronProgressing, corev1.ConditionTrue, ReasonProgressing, "Import is progressing"),
		cond(cdiv1.DataImportCronUpToDate, corev1.ConditionFalse, ReasonProgressing, "Import is progressing")
}

func cond(t cdiv1.DataImportCronConditionType, s corev1.ConditionStatus, reason, msg string) cdiv1.DataImportCronCondition {
	return cdiv1.DataImportCronCondition{Type: t, ConditionState: cdiv1.ConditionState{Status: s, Reason: reason, Message: msg}}
}

// statusKind writes DataImportCron status; upstream's CRD has no status
// subresource.
var statusKind = cdistatus.Kind[*cdiv1.DataImportCron]{
	Name: "DataImportCron",
	Conditions: func(cron *cdiv1.DataImportCron) []cdistatus.Condition {
		return cdistatus.StatesOf(cron.Status.Conditions, func(c *cdiv1.DataImportCronCondition) (string, *cdiv1.ConditionState) {
			return string(c.Type), &c.ConditionState
		})
	},
}

// writeStatus patches the cron once when its status changed.
func (r *Reconciler) writeStatus(ctx context.Context, cron *cdiv1.DataImportCron, st cdiv1.DataImportCronStatus) error {
	_, err := statusKind.Write(ctx, r.Client, cron, func(cron *cdiv1.DataImportCron) { cron.Status = st })
	return err
}
