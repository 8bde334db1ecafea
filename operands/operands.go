// Package operands computes the component CRs (HCO calls them operands)
// that a HyperConverged derives: KubeVirt, CDI, NetworkAddonsConfig, SSP and
// HostPathProvisioner, with HCO's opinionated defaults and labels. The install
// activities apply what it computes and hco-operator applies it again to
// revert drift; ReadStatus reads back what their operators report.
package operands

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// Labels every component CR carries, as HCO sets them, so tools that select
// HCO-managed objects keep working.
const (
	LabelApp       = "app"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelPartOf    = "app.kubernetes.io/part-of"
	LabelComponent = "app.kubernetes.io/component"
	LabelVersion   = "app.kubernetes.io/version"
	ManagedByValue = "hco-operator"
	PartOfValue    = "hyperconverged-cluster"
)

// Version is the version component CRs are labelled with.
var Version = "v0.1.0"

// HostPathAnnotation on a HyperConverged asks for a HostPathProvisioner with
// one storage pool at the given node path. HCO itself does not create one;
// this keeps the HyperConverged spec identical to upstream's.
const HostPathAnnotation = "virtflow.io/hostpath-provisioner-path"

// Desired returns every component CR the HyperConverged derives, in
// creation order.
func Desired(hc *hcov1beta1.HyperConverged) []client.Object {
	objs := []client.Object{desiredKubeVirt(hc), desiredCDI(hc), desiredNetworkAddons(hc), desiredSSP(hc)}
	if hpp := desiredHostPathProvisioner(hc); hpp != nil {
		objs = append(objs, hpp)
	}
	return objs
}

func componentMeta(hc *hcov1beta1.HyperConverged, name, namespace, component string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Name: name, Namespace: namespace,
		Labels: map[string]string{
			LabelApp: hc.Name, LabelManagedBy: ManagedByValue, LabelPartOf: PartOfValue,
			LabelComponent: component, LabelVersion: Version,
		},
	}
	// Owner references may only point from namespaced objects to owners in
	// the same namespace; cluster-scoped components are found by label and
	// deleted explicitly instead.
	if namespace == hc.Namespace {
		yes := true
		m.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: hcov1beta1.GroupVersion.String(), Kind: "HyperConverged",
			Name: hc.Name, UID: hc.UID, Controller: &yes, BlockOwnerDeletion: &yes,
		}}
	}
	return m
}

func certDurations(hc *hcov1beta1.HyperConverged) (caDur, caRenew, srvDur, srvRenew *metav1.Duration) {
	cc := hc.Spec.CertConfig
	caDur, caRenew = orDuration(cc.CA.Duration, "48h"), orDuration(cc.CA.RenewBefore, "24h")
	srvDur, srvRenew = orDuration(cc.Server.Duration, "24h"), orDuration(cc.Server.RenewBefore, "12h")
	return
}

func orDuration(d *metav1.Duration, def string) *metav1.Duration {
	if d != nil {
		return d.DeepCopy()
	}
	parsed, _ := time.ParseDuration(def)
	return &metav1.Duration{Duration: parsed}
}

func isTrue(b *bool) bool { return b != nil && *b }

// RefOf identifies a desired component object.
func RefOf(obj client.Object) hco.ComponentRef {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return hco.ComponentRef{Kind: gvk.Kind, APIVersion: gvk.GroupVersion().String(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// Refs identifies every component CR the HyperConverged derives.
func Refs(hc *hcov1beta1.HyperConverged) []hco.ComponentRef {
	var refs []hco.ComponentRef
	for _, obj := range Desired(hc) {
		refs = append(refs, RefOf(obj))
	}
	return refs
}
