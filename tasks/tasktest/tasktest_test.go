package tasktest

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

func TestEnv(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: "cm"}}
	env, log := Env(t, cm)
	require.NoError(t, env.Client.Get(context.Background(), crclient.ObjectKeyFromObject(cm), &corev1.ConfigMap{}))
	require.NoError(t, env.Results.Write("name", "x"))
	assert.Equal(t, map[string]string{"name": "x"}, env.Results.Values)
	env.Logf("hello")
	assert.Equal(t, "hello\n", log.String())
	assert.Equal(t, "active", env.Namespace)
}

func TestProgress(t *testing.T) {
	var p Progress
	assert.Empty(t, p.Details())
	p.Record("a")
	p.Record("b")
	got := p.Details()
	assert.Equal(t, []string{"a", "b"}, got)
	got[0] = "changed"
	assert.Equal(t, "a", p.Details()[0], "a copy")
}

func TestUnsetenv(t *testing.T) {
	t.Setenv("TASKTEST_VARIABLE", "set")
	Unsetenv(t, "TASKTEST_VARIABLE")
	_, ok := os.LookupEnv("TASKTEST_VARIABLE")
	assert.False(t, ok)
}
