package stepenv

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWriteObject(t *testing.T) {
	obj := &metav1.ObjectMeta{Name: "vm", Namespace: "ns"}
	r := &Results{Values: map[string]string{}}
	require.NoError(t, r.WriteObject(obj))
	assert.Equal(t, map[string]string{"name": "vm", "namespace": "ns"}, r.Values)

	dir := t.TempDir()
	require.NoError(t, (&Results{Dir: dir}).WriteObject(obj))
	name, err := os.ReadFile(filepath.Join(dir, "name"))
	require.NoError(t, err)
	assert.Equal(t, "vm", string(name))
}

func TestKeepAlive(t *testing.T) {
	var mu sync.Mutex
	var details []string
	env := Env{Progress: func(detail string) {
		mu.Lock()
		defer mu.Unlock()
		details = append(details, detail)
	}}
	stop := env.KeepAlive("running", time.Millisecond)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(details) >= 2
	}, 5*time.Second, time.Millisecond)
	stop()
	mu.Lock()
	assert.Equal(t, "running", details[0])
	mu.Unlock()

	Env{}.KeepAlive("nobody listens", time.Millisecond)()
}
