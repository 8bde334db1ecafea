package instancetype

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kinds a matcher may name; cluster-wide is the default, as upstream.
const (
	ClusterInstancetypeKind = "VirtualMachineClusterInstancetype"
	InstancetypeKind        = "VirtualMachineInstancetype"
	ClusterPreferenceKind   = "VirtualMachineClusterPreference"
	PreferenceKind          = "VirtualMachinePreference"
)

// kindOf resolves a matcher's kind as upstream does: the Kind or its
// plural resource name in any case; empty means cluster-wide.
func kindOf(kind, cluster, namespaced string) string {
	k := strings.ToLower(kind)
	if k == "" {
		return cluster
	}
	for _, want := range []string{cluster, namespaced} {
		if w := strings.ToLower(want); k == w || k == w+"s" {
			return want
		}
	}
	return kind
}

// FindInstancetype reads the instancetype a VM names, nil when it names
// none. A lookup error is returned as the API server gave it, which is
// what upstream puts in the VM's Failure condition.
func FindInstancetype(ctx context.Context, r client.Reader, ns string, m *kubevirtv1.InstancetypeMatcher) (*v1beta1.VirtualMachineInstancetypeSpec, error) {
	if m == nil {
		return nil, nil
	}
	switch kindOf(m.Kind, ClusterInstancetypeKind, InstancetypeKind) {
	case ClusterInstancetypeKind:
		it := &v1beta1.VirtualMachineClusterInstancetype{}
		if err := r.Get(ctx, types.NamespacedName{Name: m.Name}, it); err != nil {
			return nil, asServerSays(err, "virtualmachineclusterinstancetypes", m.Name)
		}
		return &it.Spec, nil
	case InstancetypeKind:
		it := &v1beta1.VirtualMachineInstancetype{}
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: m.Name}, it); err != nil {
			return nil, asServerSays(err, "virtualmachineinstancetypes", m.Name)
		}
		return &it.Spec, nil
	}
	return nil, fmt.Errorf("got unexpected kind in InstancetypeMatcher: %s", m.Kind)
}

// FindPreference reads the preference a VM names, nil when it names none.
func FindPreference(ctx context.Context, r client.Reader, ns string, m *kubevirtv1.PreferenceMatcher) (*v1beta1.VirtualMachinePreferenceSpec, error) {
	if m == nil {
		return nil, nil
	}
	switch kindOf(m.Kind, ClusterPreferenceKind, PreferenceKind) {
	case ClusterPreferenceKind:
		p := &v1beta1.VirtualMachineClusterPreference{}
		if err := r.Get(ctx, types.NamespacedName{Name: m.Name}, p); err != nil {
			return nil, asServerSays(err, "virtualmachineclusterpreferences", m.Name)
		}
		return &p.Spec, nil
	case PreferenceKind:
		p := &v1beta1.VirtualMachinePreference{}
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: m.Name}, p); err != nil {
			return nil, asServerSays(err, "virtualmachinepreferences", m.Name)
		}
		return &p.Spec, nil
	}
	return nil, fmt.Errorf("got unexpected kind in PreferenceMatcher: %s", m.Kind)
}

// IsNamespaced tells whether a matcher's kind names the namespaced kind
// (of instancetypes when instancetypes is true, else of preferences).
func IsNamespaced(kind string, instancetypes bool) bool {
	if instancetypes {
		return kindOf(kind, ClusterInstancetypeKind, InstancetypeKind) == InstancetypeKind
	}
	return kindOf(kind, ClusterPreferenceKind, PreferenceKind) == PreferenceKind
}

// asServerSays words a not-found as the API server does (a cache names the
// Kind, the server the resource), which is what upstream reports.
func asServerSays(err error, resource, name string) error {
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(schema.GroupResource{Group: v1beta1.SchemeGroupVersion.Group, Resource: resource}, name)
	}
	return err
}

// asServerSaysApps words a missing ControllerRevision as the API server.
func asServerSaysApps(err error, name string) error {
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "controllerrevisions"}, name)
	}
	return err
}
