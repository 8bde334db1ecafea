package podowner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSet(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "taskrun-pod", UID: "pod-uid"}}
	obj := &metav1.ObjectMeta{Namespace: "ns", OwnerReferences: []metav1.OwnerReference{{Kind: "Other"}}}
	require.NoError(t, Set(obj, pod))
	assert.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "taskrun-pod", UID: "pod-uid"}}, obj.OwnerReferences)

	elsewhere := &metav1.ObjectMeta{Namespace: "other"}
	require.EqualError(t, Set(elsewhere, pod), "can't create owner reference for objects in different namespaces")
	assert.Empty(t, elsewhere.OwnerReferences)
}
