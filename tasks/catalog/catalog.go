// Package catalog lists the tasks that can run durably, as the activity of
// the ssp workflows runs them: each task package's stepenv.Task by its
// Tekton Task name.
package catalog

import "github.com/virtflow/virtflow/tasks/stepenv"

// Tasks are the durable tasks by name. Until the task packages are listed
// here there are none, and a DurableTask run fails saying so.
func Tasks() map[string]stepenv.Task {
	return map[string]stepenv.Task{}
}
