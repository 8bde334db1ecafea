// Package catalog lists the tasks that can run durably, as the activity of
// the ssp workflows runs them: each task package's stepenv.Task by its
// Tekton Task name.
package catalog

import (
	"github.com/virtflow/virtflow/tasks/copytemplate"
	"github.com/virtflow/virtflow/tasks/createvm"
	"github.com/virtflow/virtflow/tasks/executeinvm"
	"github.com/virtflow/virtflow/tasks/generatesshkeys"
	"github.com/virtflow/virtflow/tasks/modifydataobject"
	"github.com/virtflow/virtflow/tasks/modifyvmtemplate"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/waitforvmistatus"
)

// NotDurable are the tasks that run only as pods: libguestfs works on the
// claim inside the disk-virt image, which the control worker is not.
var NotDurable = []string{"disk-virt-customize", "disk-virt-sysprep"}

// Tasks are the durable tasks by name.
func Tasks() map[string]stepenv.Task {
	out := map[string]stepenv.Task{}
	for _, t := range []stepenv.Task{
		createvm.FromManifest, createvm.FromTemplate, copytemplate.Task, modifyvmtemplate.Task,
		modifydataobject.Task, waitforvmistatus.Task, executeinvm.ExecuteInVM, executeinvm.CleanupVM,
		generatesshkeys.Task,
	} {
		out[t.Name] = t
	}
	return out
}
