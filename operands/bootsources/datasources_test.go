package bootsources

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// existingDS is a DataSource as found in the cluster.
func existingDS(labels map[string]string, source cdiv1beta1.DataSourceSource, ready corev1.ConditionStatus) *cdiv1beta1.DataSource {
	ds := &cdiv1beta1.DataSource{
		ObjectMeta: metav1.ObjectMeta{Name: "fedora", Namespace: bootNS, Labels: labels},
		Spec:       cdiv1beta1.DataSourceSpec{Source: source},
	}
	if ready != "" {
		ds.Status.Conditions = []cdiv1beta1.DataSourceCondition{{Type: cdiv1beta1.DataSourceReady, ConditionState: cdiv1beta1.ConditionState{Status: ready}}}
	}
	return ds
}

func pvcSource(ns, name string) cdiv1beta1.DataSourceSource {
	return cdiv1beta1.DataSourceSource{PVC: &cdiv1beta1.DataVolumeSourcePVC{Namespace: ns, Name: name}}
}

func TestTakeOver(t *testing.T) {
	withCron := ManagedDataSource{Namespace: bootNS, Name: "fedora", Cron: "fedora-image-cron"}
	noCron := ManagedDataSource{Namespace: bootNS, Name: "fedora"}
	opted := map[string]string{DataImportCronLabel: ""}
	cases := []struct {
		name      string
		m         ManagedDataSource
		found     *cdiv1beta1.DataSource
		pvc       bool
		want      bool
		asksClaim bool
	}{
		{"no cron", noCron, nil, false, false, false},
		{"no cron, even when opted in", noCron, existingDS(opted, cdiv1beta1.DataSourceSource{}, ""), false, false, false},
		{"new, no claim", withCron, nil, false, true, true},
		{"new, a claim provided by hand", withCron, nil, true, false, true},
		{"opted in by label, claim present", withCron, existingDS(opted, pvcSource(bootNS, "fedora"), corev1.ConditionTrue), true, true, false},
		{"opted in with another cron's name", withCron, existingDS(map[string]string{DataImportCronLabel: "old"}, cdiv1beta1.DataSourceSource{}, ""), true, true, false},
		{"label removed, claim present", withCron, existingDS(map[string]string{"x": "y"}, pvcSource(bootNS, "fedora"), corev1.ConditionTrue), true, false, true},
		{"label removed, no claim", withCron, existingDS(nil, pvcSource(bootNS, "fedora-abc"), corev1.ConditionTrue), false, true, true},
		{"ready on the default claim decides nothing", withCron, existingDS(nil, pvcSource(bootNS, "fedora"), corev1.ConditionTrue), false, true, true},
		{"not ready on the default claim, claim present", withCron, existingDS(nil, pvcSource(bootNS, "fedora"), corev1.ConditionFalse), true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := false
			got, err := TakeOver(c.m, c.found, func() (bool, error) { asked = true; return c.pvc, nil })
			require.NoError(t, err)
			require.Equal(t, c.want, got)
			require.Equal(t, c.asksClaim, asked, "whether the claim is looked up")
		})
	}
	_, err := TakeOver(withCron, nil, func() (bool, error) { return false, errors.New("boom") })
	require.EqualError(t, err, "boom")
}

func TestDataSourceToWrite(t *testing.T) {
	p := New(newSSP(hcoLabels), Options{Namespace: bootNS})
	m := ManagedDataSource{Namespace: bootNS, Name: "fedora", Cron: "fedora-image-cron"}
	yes := true
	cdiSet := existingDS(map[string]string{DataImportCronLabel: "stale", "keep": "me"}, pvcSource(bootNS, "fedora-1a2b3c"), corev1.ConditionTrue)
	cdiSet.OwnerReferences = []metav1.OwnerReference{{Kind: "X", Name: "x", Controller: &yes}}
	cases := []struct {
		name       string
		takeOver   bool
		found      *cdiv1beta1.DataSource
		wantLabels map[string]string
		wantSource cdiv1beta1.DataSourceSource
	}{
		{"new, taken over: no source until the first import", true, nil,
			map[string]string{DataImportCronLabel: "fedora-image-cron"}, cdiv1beta1.DataSourceSource{}},
		{"existing, taken over: CDI's source stays, the label is restored", true, cdiSet,
			map[string]string{DataImportCronLabel: "fedora-image-cron", "keep": "me"}, pvcSource(bootNS, "fedora-1a2b3c")},
		{"new, declined: points at the claim of its name", false, nil,
			appLabels(nil), pvcSource(bootNS, "fedora")},
		{"existing, declined: label dropped, source restored", false, cdiSet,
			appLabels(map[string]string{"keep": "me"}), pvcSource(bootNS, "fedora")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before *cdiv1beta1.DataSource
			if c.found != nil {
				before = c.found.DeepCopy()
			}
			ds := p.DataSource(m, c.takeOver, c.found)
			require.Equal(t, before, c.found, "found is not modified")
			require.Equal(t, "fedora", ds.Name)
			require.Equal(t, bootNS, ds.Namespace)
			require.Equal(t, "DataSource", ds.Kind)
			require.Equal(t, c.wantLabels, ds.Labels)
			require.Equal(t, c.wantSource, ds.Spec.Source)
			wantOwner(t, ds)
		})
	}
}

func appLabels(extra map[string]string) map[string]string {
	l := map[string]string{
		LabelAppName: "data-sources", LabelAppComponent: "templating", LabelAppManagedBy: "ssp-operator",
		LabelAppPartOf: "hyperconverged-cluster", LabelAppVersion: "1.2.3",
	}
	for k, v := range extra {
		l[k] = v
	}
	return l
}

func TestStaleDataSources(t *testing.T) {
	p := New(newSSP(nil), Options{Namespace: bootNS, DataSourceNames: []string{"fedora"}})
	owned := func(ns, name string) cdiv1beta1.DataSource {
		ds := cdiv1beta1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		p.owner.annotate(&ds)
		return ds
	}
	foreign := cdiv1beta1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: bootNS, Name: "user"}}
	existing := []cdiv1beta1.DataSource{owned(bootNS, "fedora"), owned(bootNS, "centos7"), owned("elsewhere", "rhel8"), foreign}
	stale := p.StaleDataSources(existing)
	require.Len(t, stale, 1)
	require.Equal(t, "centos7", stale[0].Name)
}
