package hostpathvolume

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func volume(driver, handle, path string, nodes ...string) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: handle}}
	pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle, VolumeAttributes: map[string]string{ContextPath: path}}
	var terms []corev1.NodeSelectorTerm
	for _, n := range nodes {
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: TopologyKey, Operator: corev1.NodeSelectorOpIn, Values: []string{n}}}})
	}
	if len(terms) > 0 {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	}
	return pv
}

func TestDirOfThisNodesVolume(t *testing.T) {
	dir, err := Dir(volume(DriverName, "pvc-1", "/srv/host/var/hpvolumes/pvc-1", "node01"), "node01", "/srv/host")
	require.NoError(t, err)
	require.Equal(t, "/srv/host/var/hpvolumes/pvc-1", dir)
	dir, err = Dir(volume(DriverName, "pvc-1", "/var/hpvolumes/pvc-1", "node01"), "node01", "/")
	require.NoError(t, err, "a real node's root is /")
	require.Equal(t, "/var/hpvolumes/pvc-1", dir)
}

func TestDirRefusesWhatIsNotThisNodesVolume(t *testing.T) {
	for name, tc := range map[string]struct {
		pv   *corev1.PersistentVolume
		want string
	}{
		"another driver":       {volume("other.csi", "pvc-1", "/srv/host/pvc-1", "node01"), "is not provisioned by"},
		"a hostPath volume":    {&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}}}, "is not provisioned by"},
		"another node":         {volume(DriverName, "pvc-1", "/srv/host/pvc-1", "node02"), "does not pin it to node node01"},
		"any node":             {volume(DriverName, "pvc-1", "/srv/host/pvc-1"), "has no node affinity"},
		"this or another node": {volume(DriverName, "pvc-1", "/srv/host/pvc-1", "node01", "node02"), "does not pin it to node node01"},
		"outside the root":     {volume(DriverName, "pvc-1", "/etc/pvc-1", "node01"), "is not under the node's hostpath root /srv/host"},
		"the root itself":      {volume(DriverName, "host", "/srv/host", "node01"), "is not under the node's hostpath root"},
		"a path with ..":       {volume(DriverName, "pvc-1", "/srv/host/../../etc/pvc-1", "node01"), "is not a clean absolute directory"},
		"a relative path":      {volume(DriverName, "pvc-1", "srv/host/pvc-1", "node01"), "is not a clean absolute directory"},
		"a path not its own":   {volume(DriverName, "pvc-1", "/srv/host/pvc-2", "node01"), "named after its handle"},
		"a handle with /":      {volume(DriverName, "a/pvc-1", "/srv/host/a/pvc-1", "node01"), "cannot name a volume directory"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Dir(tc.pv, "node01", "/srv/host")
			require.ErrorIs(t, err, ErrNotOurs)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
