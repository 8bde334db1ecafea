package modifydataobject

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const dvManifest = `apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: disk
spec:
  source:
    blank: {}
  storage:
    resources:
      requests:
        storage: 100Mi
`

const dsManifest = `{"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataSource",
 "metadata": {"name": "src", "namespace": "images"},
 "spec": {"source": {"pvc": {"name": "disk", "namespace": "images"}}}}`

func TestMain(m *testing.M) {
	pollInterval = 5 * time.Millisecond
	m.Run()
}

// testEnv is a task environment on a fake cluster holding objs.
type testEnv struct {
	stepenv.Env
	client crclient.Client
	log    *bytes.Buffer
	alive  tasktest.Progress
}

func newTestEnv(t *testing.T, objs ...crclient.Object) *testEnv {
	t.Helper()
	c := tasktest.Builder(t).WithObjects(objs...).Build()
	te := &testEnv{client: c, log: &bytes.Buffer{}}
	te.Env = stepenv.Env{
		Client: c, Namespace: "active", Log: te.log,
		Results:  &stepenv.Results{Values: map[string]string{}},
		Progress: te.alive.Record,
	}
	return te
}

func (te *testEnv) run(params map[string]string) error {
	return Task.Run(context.Background(), te.Env, stepenv.Params{Strings: params})
}

func (te *testEnv) results() map[string]string { return te.Results.Values }

func TestBadParametersFailWithUpstreamMessages(t *testing.T) {
	cases := map[string]struct {
		params map[string]string
		want   string
	}{
		"delete without kind":   {map[string]string{ParamDeleteObject: "true", ParamDeleteObjectName: "x"}, "delete-object-kind param has to be specified"},
		"delete without name":   {map[string]string{ParamDeleteObject: "true", ParamDeleteObjectKind: "DataVolume"}, "delete-object-name param has to be specified"},
		"delete of a pod":       {map[string]string{ParamDeleteObject: "true", ParamDeleteObjectKind: "Pod", ParamDeleteObjectName: "x"}, "delete-object-kind param has to have values DataVolume or DataSource"},
		"bad timeout":           {map[string]string{ParamManifest: dvManifest, ParamTimeout: "soon"}, `error during parsing timeout: time: invalid duration "soon"`},
		"no manifest":           {map[string]string{ParamManifest: "  \n"}, "data-object-manifest param has to be specified"},
		"manifest without kind": {map[string]string{ParamManifest: "metadata: {name: x}"}, "could not read data object manifest: error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in"},
		"manifest not yaml":     {map[string]string{ParamManifest: "kind: [x"}, "could not read data object manifest: "},
		"a pvc manifest":        {map[string]string{ParamManifest: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x}"}, "could not identify data object, wrong group or kind"},
		"another cdi kind":      {map[string]string{ParamManifest: "apiVersion: cdi.kubevirt.io/v1beta1\nkind: DataImportCron\nmetadata: {name: x}"}, "could not identify data object, wrong group or kind"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := newTestEnv(t).run(tc.params)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
}

// The namespace is the parameter's, else the manifest's, else the active one.
func TestNamespaceComesFromParameterManifestOrActiveNamespace(t *testing.T) {
	te := newTestEnv(t)
	require.NoError(t, te.run(map[string]string{ParamManifest: dvManifest}))
	assert.Equal(t, map[string]string{ResultName: "disk", ResultNamespace: "active"}, te.results())

	te = newTestEnv(t)
	require.NoError(t, te.run(map[string]string{ParamManifest: dsManifest}))
	assert.Equal(t, map[string]string{ResultName: "src", ResultNamespace: "images"}, te.results())

	te = newTestEnv(t)
	require.NoError(t, te.run(map[string]string{ParamManifest: dsManifest, ParamNamespace: " other "}))
	assert.Equal(t, map[string]string{ResultName: "src", ResultNamespace: "other"}, te.results())
	require.NoError(t, te.client.Get(context.Background(), types.NamespacedName{Namespace: "other", Name: "src"}, &cdiv1beta1.DataSource{}))
}

func TestGenerateNameGivesTheCreatedName(t *testing.T) {
	te := newTestEnv(t)
	manifest := strings.Replace(dvManifest, "name: disk", "generateName: disk-", 1)
	require.NoError(t, te.run(map[string]string{ParamManifest: manifest}))
	name := te.results()[ResultName]
	assert.True(t, strings.HasPrefix(name, "disk-") && len(name) > len("disk-"), name)
	dv := &cdiv1beta1.DataVolume{}
	require.NoError(t, te.client.Get(context.Background(), types.NamespacedName{Namespace: "active", Name: name}, dv))
	assert.NotNil(t, dv.Spec.Source.Blank)
}

func TestAnExistingObjectIsKeptUnlessReplaceIsAllowed(t *testing.T) {
	old := &cdiv1beta1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "disk", UID: "old"}}
	te := newTestEnv(t, old)
	err := te.run(map[string]string{ParamManifest: dvManifest, ParamAllowReplace: "false"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not create data object: ")
	assert.Contains(t, err.Error(), "already exists")

	require.NoError(t, te.run(map[string]string{ParamManifest: dvManifest, ParamAllowReplace: "true"}))
	dv := &cdiv1beta1.DataVolume{}
	require.NoError(t, te.client.Get(context.Background(), types.NamespacedName{Namespace: "active", Name: "disk"}, dv))
	assert.NotNil(t, dv.Spec.Source.Blank, "the manifest's DataVolume replaced the old one")
}

// A DataVolume CDI collected leaves its claim, which a replacement deletes.
func TestReplacingACollectedDataVolumeDeletesItsClaim(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "disk"}}
	te := newTestEnv(t, pvc)
	require.NoError(t, te.run(map[string]string{ParamManifest: dvManifest, ParamAllowReplace: "true"}))
	err := te.client.Get(context.Background(), crclient.ObjectKeyFromObject(pvc), &corev1.PersistentVolumeClaim{})
	assert.True(t, apierrors.IsNotFound(err), "the claim went: %v", err)
	require.NoError(t, te.client.Get(context.Background(), crclient.ObjectKeyFromObject(pvc), &cdiv1beta1.DataVolume{}))
}

func TestReplacingADataSource(t *testing.T) {
	old := &cdiv1beta1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: "images", Name: "src"}}
	te := newTestEnv(t, old)
	require.NoError(t, te.run(map[string]string{ParamManifest: dsManifest, ParamAllowReplace: "true"}))
	ds := &cdiv1beta1.DataSource{}
	require.NoError(t, te.client.Get(context.Background(), crclient.ObjectKeyFromObject(old), ds))
	assert.Equal(t, "disk", ds.Spec.Source.PVC.Name)
}

func TestOwnerReferenceIsTheTaskRunPod(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "taskrun-pod", UID: "pod-uid"}}
	te := newTestEnv(t, pod)
	params := map[string]string{ParamManifest: dvManifest, ParamSetOwnerReference: "true", ParamPodName: "taskrun-pod", ParamPodNamespace: "active"}
	require.NoError(t, te.run(params))
	dv := &cdiv1beta1.DataVolume{}
	require.NoError(t, te.client.Get(context.Background(), types.NamespacedName{Namespace: "active", Name: "disk"}, dv))
	assert.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "taskrun-pod", UID: "pod-uid"}}, dv.OwnerReferences)
}

func TestOwnerReferenceErrors(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "taskrun-pod"}}
	cases := map[string]struct {
		params map[string]string
		want   string
	}{
		"no pod name":      {map[string]string{ParamPodNamespace: "active"}, "pod name env variable is not set"},
		"no pod namespace": {map[string]string{ParamPodName: "taskrun-pod"}, "pod namespace env variable is not set"},
		"no such pod":      {map[string]string{ParamPodName: "gone", ParamPodNamespace: "active"}, `pods "gone" not found`},
		"other namespace":  {map[string]string{ParamPodName: "taskrun-pod", ParamPodNamespace: "active", ParamNamespace: "other"}, "can't create owner reference for objects in different namespaces"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.params[ParamManifest] = dvManifest
			tc.params[ParamSetOwnerReference] = "true"
			te := newTestEnv(t, pod)
			err := te.run(tc.params)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Empty(t, te.results())
		})
	}
}

func TestDeleteObjectDeletesEachKind(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "active", Name: name} }
	objs := map[string]crclient.Object{
		kindDataVolume: &cdiv1beta1.DataVolume{ObjectMeta: meta("dv")},
		kindDataSource: &cdiv1beta1.DataSource{ObjectMeta: meta("ds")},
		kindPVC:        &corev1.PersistentVolumeClaim{ObjectMeta: meta("pvc")},
	}
	for kind, obj := range objs {
		t.Run(kind, func(t *testing.T) {
			te := newTestEnv(t, obj)
			// The manifest is ignored when deleting.
			params := map[string]string{ParamDeleteObject: "true", ParamDeleteObjectKind: kind, ParamDeleteObjectName: obj.GetName(), ParamManifest: "junk"}
			require.NoError(t, te.run(params))
			err := te.client.Get(context.Background(), crclient.ObjectKeyFromObject(obj), obj)
			assert.True(t, apierrors.IsNotFound(err), "deleted: %v", err)
			assert.Empty(t, te.results())

			err = te.run(params)
			require.Error(t, err, "deleting what is gone fails, as upstream")
			assert.True(t, apierrors.IsNotFound(err))
		})
	}
}

func TestDeleteObjectInTheNamespaceParameter(t *testing.T) {
	dv := &cdiv1beta1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "dv"}}
	te := newTestEnv(t, dv)
	require.NoError(t, te.run(map[string]string{ParamDeleteObject: "true", ParamDeleteObjectKind: kindDataVolume, ParamDeleteObjectName: "dv", ParamNamespace: "other"}))
	assert.True(t, apierrors.IsNotFound(te.client.Get(context.Background(), crclient.ObjectKeyFromObject(dv), dv)))
}
