package vmpool

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
)

func volumes() []kubevirtv1.Volume {
	ref := func(n string) *corev1.LocalObjectReference { return &corev1.LocalObjectReference{Name: n} }
	return []kubevirtv1.Volume{
		{Name: "root", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "root"}}},
		{Name: "data", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
			PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}},
		{Name: "shared", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
			PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "shared"}}}},
		{Name: "cm", VolumeSource: kubevirtv1.VolumeSource{ConfigMap: &kubevirtv1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		{Name: "sec", VolumeSource: kubevirtv1.VolumeSource{Secret: &kubevirtv1.SecretVolumeSource{SecretName: "sec"}}},
		{Name: "ci", VolumeSource: kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserDataSecretRef: ref("ud"), NetworkDataSecretRef: ref("nd")}}},
		{Name: "cd", VolumeSource: kubevirtv1.VolumeSource{CloudInitConfigDrive: &kubevirtv1.CloudInitConfigDriveSource{UserDataSecretRef: ref("cud")}}},
		{Name: "sa", VolumeSource: kubevirtv1.VolumeSource{ServiceAccount: &kubevirtv1.ServiceAccountVolumeSource{ServiceAccountName: "sa"}}},
	}
}

func indexedPool(cms, secrets bool) *poolv1.VirtualMachinePool {
	pool := newPool(1)
	pool.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{
		{ObjectMeta: metav1.ObjectMeta{Name: "root"}}, {ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	pool.Spec.VirtualMachineTemplate.Spec.Template.Spec.Volumes = volumes()
	pool.Spec.NameGeneration = &poolv1.VirtualMachinePoolNameGeneration{AppendIndexToConfigMapRefs: &cms, AppendIndexToSecretRefs: &secrets}
	return pool
}

func TestIndexVMSpecRenamesDataVolumesAndWhatTheyBack(t *testing.T) {
	pool := indexedPool(false, false)
	spec := indexVMSpec(&pool.Spec, 7)
	require.Equal(t, "root-7", spec.DataVolumeTemplates[0].Name)
	require.Equal(t, "data-7", spec.DataVolumeTemplates[1].Name)
	v := spec.Template.Spec.Volumes
	require.Equal(t, "root-7", v[0].DataVolume.Name)
	require.Equal(t, "data-7", v[1].PersistentVolumeClaim.ClaimName)
	require.Equal(t, "shared", v[2].PersistentVolumeClaim.ClaimName, "a claim no template creates is shared")
	require.Equal(t, "cm", v[3].ConfigMap.Name)
	require.Equal(t, "sec", v[4].Secret.SecretName)
	require.Equal(t, "ud", v[5].CloudInitNoCloud.UserDataSecretRef.Name)
	require.Equal(t, "root", pool.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates[0].Name, "the pool's template is not changed")
}

func TestIndexVMSpecAppendsTheIndexToConfigMapsAndSecretsOnRequest(t *testing.T) {
	pool := indexedPool(true, true)
	v := indexVMSpec(&pool.Spec, 2).Template.Spec.Volumes
	require.Equal(t, "cm-2", v[3].ConfigMap.Name)
	require.Equal(t, "sec-2", v[4].Secret.SecretName)
	require.Equal(t, "ud-2", v[5].CloudInitNoCloud.UserDataSecretRef.Name)
	require.Equal(t, "nd-2", v[5].CloudInitNoCloud.NetworkDataSecretRef.Name)
	require.Equal(t, "cud-2", v[6].CloudInitConfigDrive.UserDataSecretRef.Name)
	require.Nil(t, v[6].CloudInitConfigDrive.NetworkDataSecretRef)
	require.Equal(t, "sa", v[7].ServiceAccount.ServiceAccountName, "service accounts are never indexed")
	require.Equal(t, "cm", pool.Spec.VirtualMachineTemplate.Spec.Template.Spec.Volumes[3].ConfigMap.Name)
}

func TestFreeIndicesAndIndexFromName(t *testing.T) {
	taken := map[string]bool{"p-0": true, "p-2": true}
	require.Equal(t, []int{1, 3, 4}, freeIndices("p", 3, taken))
	idx, err := indexFromName("my-pool-12")
	require.NoError(t, err)
	require.Equal(t, 12, idx)
	_, err = indexFromName("my-pool")
	require.Error(t, err)
}

func TestSelectorsMatchTemplateLabelsAndNodeSelector(t *testing.T) {
	pool := newPool(2)
	a, b := poolVM(pool, 0), poolVM(pool, 1)
	a.Spec.Template.ObjectMeta.Labels["tier"] = "gold"
	a.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
	b.Spec.Template.ObjectMeta.Labels["tier"] = "gold"
	policy := &poolv1.VirtualMachinePoolSelectionPolicy{Selectors: &poolv1.VirtualMachinePoolSelectors{
		LabelSelector:                  &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}},
		NodeSelectorRequirementMatcher: &[]corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpExists}},
	}}
	got, err := filterBySelectors([]*kubevirtv1.VirtualMachine{a, b}, policy)
	require.NoError(t, err)
	require.Equal(t, []*kubevirtv1.VirtualMachine{a}, got)

	policy.Selectors.NodeSelectorRequirementMatcher = &[]corev1.NodeSelectorRequirement{{Key: "zone", Operator: "Near"}}
	_, err = filterBySelectors([]*kubevirtv1.VirtualMachine{a}, policy)
	require.EqualError(t, err, `failed to parse node selector from pool: "Near" is not a valid label selector operator`)
}

func TestSortByOrdinalTreatsUnparsableNamesAsZero(t *testing.T) {
	vms := []*kubevirtv1.VirtualMachine{
		{ObjectMeta: metav1.ObjectMeta{Name: "p-10"}}, {ObjectMeta: metav1.ObjectMeta{Name: "p-x"}}, {ObjectMeta: metav1.ObjectMeta{Name: "p-2"}}}
	sortVMs(vms, poolv1.VirtualMachinePoolSortPolicyAscendingOrder)
	require.Equal(t, []string{"p-x", "p-2", "p-10"}, []string{vms[0].Name, vms[1].Name, vms[2].Name})
	sortVMs(vms, poolv1.VirtualMachinePoolSortPolicyDescendingOrder)
	require.Equal(t, []string{"p-10", "p-2", "p-x"}, []string{vms[0].Name, vms[1].Name, vms[2].Name})
}
