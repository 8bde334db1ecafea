package dataimportcron

import (
	"context"
	"fmt"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// SetupWithManager watches DataImportCrons, the DataVolumes and
// DataSources labelled with a cron's name, and the polls it sees running.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toCron := handler.EnqueueRequestsFromMapFunc(cronOf)
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("cdi-dataimportcron").
		For(&cdiv1.DataImportCron{}).
		Watches(&cdiv1.DataVolume{}, toCron).
		Watches(&cdiv1.DataSource{}, toCron))
	if err == nil {
		err = b.Complete(r)
	}
	if err != nil {
		return fmt.Errorf("setting up DataImportCron controller: %w", err)
	}
	return nil
}

// cronOf maps an object to the cron named by its label, in its namespace.
func cronOf(_ context.Context, obj client.Object) []ctrl.Request {
	name := obj.GetLabels()[cdi.LabelDataImportCron]
	if name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}}}
}
