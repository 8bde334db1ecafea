package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks"
)

// TestEveryTaskIsDurableButTheDiskVirtOnes checks the catalog against the
// Task YAMLs: a task added there is either durable or said not to be.
func TestEveryTaskIsDurableButTheDiskVirtOnes(t *testing.T) {
	durable := Tasks()
	for _, name := range tasks.TaskNames() {
		_, ok := durable[name]
		require.Equal(t, !contains(NotDurable, name), ok, name)
	}
	require.Len(t, durable, len(tasks.TaskNames())-len(NotDurable))
	for name, task := range durable {
		require.Equal(t, name, task.Name)
		require.NotNil(t, task.Run, name)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
