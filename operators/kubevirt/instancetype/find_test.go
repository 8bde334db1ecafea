package instancetype

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatcherKindsResolveAsUpstream(t *testing.T) {
	cases := map[string]string{
		"":                                   ClusterInstancetypeKind,
		"VirtualMachineClusterInstancetype":  ClusterInstancetypeKind,
		"virtualmachineclusterinstancetype":  ClusterInstancetypeKind,
		"virtualmachineclusterinstancetypes": ClusterInstancetypeKind,
		"virtualmachineinstancetype":         InstancetypeKind,
		"VirtualMachineInstancetypes":        InstancetypeKind,
		"Pod":                                "Pod",
	}
	for kind, want := range cases {
		require.Equal(t, want, kindOf(kind, ClusterInstancetypeKind, InstancetypeKind), "kind %q", kind)
	}
	require.Equal(t, PreferenceKind, kindOf("virtualmachinepreference", ClusterPreferenceKind, PreferenceKind))
	require.True(t, IsNamespaced("VirtualMachinePreference", false))
	require.False(t, IsNamespaced("", true))
}
