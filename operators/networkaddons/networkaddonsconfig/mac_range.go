package networkaddonsconfig

import (
	"context"
	"crypto/rand"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

// The range's ConfigMap, upstream's: the kubemacpool pod reads its keys as
// environment, and the operator reads them back so a generated range
// survives restarts and re-renders.
const (
	RangeConfig   = "kubemacpool-mac-range-config"
	RangeStartKey = "RANGE_START"
	RangeEndKey   = "RANGE_END"
)

// macRange is the NetworkAddonsConfig's spec.kubeMacPool range when set,
// else the one already persisted in RangeConfig, else a new DefaultRange.
// A configured range that does not parse is refused with
// cluster-network-addons-operator's message.
func macRange(ctx context.Context, r client.Reader, ns string, owner client.Object) (kubemacpool.Range, error) {
	start, end := specRange(owner)
	if start != "" || end != "" {
		rng, err := kubemacpool.ParseRange(start, end)
		if err != nil {
			return kubemacpool.Range{}, fmt.Errorf("spec.kubeMacPool: %w", err)
		}
		return rng, nil
	}
	if r != nil {
		cm := &corev1.ConfigMap{}
		err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: RangeConfig}, cm)
		if client.IgnoreNotFound(err) != nil {
			return kubemacpool.Range{}, fmt.Errorf("reading %s: %w", RangeConfig, err)
		}
		if rng, err := kubemacpool.ParseRange(cm.Data[RangeStartKey], cm.Data[RangeEndKey]); err == nil && cm.Data[RangeStartKey] != "" {
			return rng, nil
		}
	}
	rng, err := kubemacpool.DefaultRange(rand.Reader)
	if err != nil {
		return kubemacpool.Range{}, fmt.Errorf("generating the default mac range: %w", err)
	}
	return rng, nil
}

// specRange reads spec.kubeMacPool's rangeStart and rangeEnd.
func specRange(owner client.Object) (start, end string) {
	u, ok := owner.(*unstructured.Unstructured)
	if !ok {
		return "", ""
	}
	start, _, _ = unstructured.NestedString(u.Object, "spec", "kubeMacPool", "rangeStart")
	end, _, _ = unstructured.NestedString(u.Object, "spec", "kubeMacPool", "rangeEnd")
	return start, end
}

// rangeConfigMap persists rng where the pod and later renders read it.
func rangeConfigMap(ns string, rng kubemacpool.Range, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: RangeConfig, Labels: labels},
		Data:       map[string]string{RangeStartKey: rng.Start.String(), RangeEndKey: rng.End.String()},
	}
}
