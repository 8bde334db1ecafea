package kubemacpool

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestANamespaceTheCacheHasNotSeenIsReadFromTheAPIServer: a VM created right
// after its namespace reaches the webhook before the namespace watch does.
func TestANamespaceTheCacheHasNotSeenIsReadFromTheAPIServer(t *testing.T) {
	fresh := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh", Labels: map[string]string{"a": "b"}}}
	r := namespaceReader{cache: fake.NewClientBuilder().Build(), api: fake.NewClientBuilder().WithObjects(fresh).Build()}
	got := &corev1.Namespace{}
	require.NoError(t, r.Get(context.Background(), crclient.ObjectKey{Name: "fresh"}, got))
	require.Equal(t, "b", got.Labels["a"])

	err := r.Get(context.Background(), crclient.ObjectKey{Name: "gone"}, got)
	require.True(t, apierrors.IsNotFound(err), "a namespace neither knows is not found: %v", err)
}
