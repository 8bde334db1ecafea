package cdicron

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/activities/storage"
	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func dvAt(name string, minute int) cdiv1.DataVolume {
	return cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{
		Name: name, CreationTimestamp: metav1.NewTime(time.Date(2025, 1, 1, 0, minute, 0, 0, time.UTC)),
	}}
}

func TestOutdatedKeepsTheNewestAndNeverTheCurrent(t *testing.T) {
	dvs := []cdiv1.DataVolume{dvAt("d", 4), dvAt("a", 1), dvAt("c", 3), dvAt("b", 2), dvAt("e", 5)}
	require.Equal(t, []string{"a", "b"}, Outdated(dvs, 3, "e"), "oldest first, the three newest stay")
	require.Equal(t, []string{"b", "c", "d", "e"}, Outdated(dvs, 1, "a"), "the current one stays even when it is the oldest")
	require.Equal(t, []string{"a", "b", "c", "d"}, Outdated(dvs, 0, "e"), "keeping none still keeps the current one")
	require.Empty(t, Outdated(dvs, 5, "e"))
	require.Empty(t, Outdated(dvs, 9, "x"))
	require.Equal(t, []string{"a", "b", "c"}, Outdated(dvs, 3, "x"), "a current one not yet listed counts as kept")
	deleting := dvAt("d", 4)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	require.Equal(t, []string{"a"}, Outdated([]cdiv1.DataVolume{dvAt("a", 1), dvAt("b", 2), deleting, dvAt("e", 5)}, 2, "e"),
		"one already being deleted is neither counted nor deleted again")
}

func TestDataVolumeNameIsStablePerDigest(t *testing.T) {
	a := DataVolumeName("fedora", "sha256:1111")
	require.Equal(t, a, DataVolumeName("fedora", "sha256:1111"))
	require.NotEqual(t, a, DataVolumeName("fedora", "sha256:2222"))
	require.Len(t, a, len("fedora-")+12)
}

func TestRegistryURLIsPinnedToTheDigest(t *testing.T) {
	for in, want := range map[string]string{
		"docker://quay.io/containerdisks/fedora:41":    "docker://quay.io/containerdisks/fedora@sha256:ab",
		"docker://127.0.0.1:5000/disks/fedora":         "docker://127.0.0.1:5000/disks/fedora@sha256:ab",
		"docker://127.0.0.1:5000/fedora@sha256:old":    "docker://127.0.0.1:5000/fedora@sha256:ab",
		"docker://fedora:41":                           "docker://fedora@sha256:ab",
		"docker://registry.example:443/a/b/c:v1.2-rc3": "docker://registry.example:443/a/b/c@sha256:ab",
	} {
		require.Equal(t, want, pinnedRegistryURL(in, "sha256:ab"), in)
	}
}

func TestHTTPDigestIsTheETagElseLastModified(t *testing.T) {
	etag := `"abc"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			http.Error(w, "HEAD only", http.StatusMethodNotAllowed)
			return
		}
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		w.Header().Set("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT")
	}))
	defer srv.Close()
	d, err := httpDigest(context.Background(), storage.Source{URL: srv.URL + "/disk.img"})
	require.NoError(t, err)
	require.Equal(t, "etag:abc", d)
	etag = ""
	d, err = httpDigest(context.Background(), storage.Source{URL: srv.URL + "/disk.img"})
	require.NoError(t, err)
	require.Equal(t, "last-modified:Wed, 01 Jan 2025 00:00:00 GMT", d)
}

func newActivities(t *testing.T, objs ...crclient.Object) *Activities {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	return &Activities{Client: c, PollInterval: time.Millisecond}
}

func testCron() *cdiv1.DataImportCron {
	return &cdiv1.DataImportCron{
		ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "fedora-cron", UID: "uid-1"},
		Spec: cdiv1.DataImportCronSpec{
			ManagedDataSource: "fedora", Schedule: "0 */12 * * *",
			Template: cdiv1.DataVolume{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "images"}},
				Spec:       cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://images/fedora.qcow2"}}},
			},
		},
	}
}

var testRef = cdi.CronRef{Namespace: "golden", Name: "fedora-cron", UID: "uid-1"}

func TestEnsureImportTwiceMakesOneDataVolume(t *testing.T) {
	a := newActivities(t, testCron())
	target := cdi.ImportTarget{Cron: testRef, DataVolume: DataVolumeName("fedora", "etag:1"), Digest: "etag:1"}
	require.NoError(t, a.EnsureImport(context.Background(), target))
	require.NoError(t, a.EnsureImport(context.Background(), target))
	list := &cdiv1.DataVolumeList{}
	require.NoError(t, a.Client.List(context.Background(), list))
	require.Len(t, list.Items, 1)
	dv := list.Items[0]
	require.Equal(t, map[string]string{"team": "images", cdi.LabelDataImportCron: "fedora-cron"}, dv.Labels)
	require.Equal(t, "etag:1", dv.Annotations[cdi.AnnSourceDesiredDigest])
	require.Equal(t, "true", dv.Annotations[cdi.AnnImmediateBinding])
	require.Equal(t, "http://images/fedora.qcow2", dv.Spec.Source.HTTP.URL)
}

func TestAGoneOrRecreatedCronEndsThePoll(t *testing.T) {
	a := newActivities(t, testCron())
	_, err := a.CheckSource(context.Background(), cdi.CronRef{Namespace: "golden", Name: "fedora-cron", UID: "uid-old"})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeCronGone, app.Type())
	require.True(t, app.NonRetryable())
}

func TestPointDataSourceCreatesOrRepointsOnlyItsOwn(t *testing.T) {
	ctx := context.Background()
	a := newActivities(t, testCron())
	target := cdi.ImportTarget{Cron: testRef, DataVolume: "fedora-111111111111"}
	require.NoError(t, a.PointDataSource(ctx, target))
	target.DataVolume = "fedora-222222222222"
	require.NoError(t, a.PointDataSource(ctx, target))
	ds := &cdiv1.DataSource{}
	require.NoError(t, a.Client.Get(ctx, types.NamespacedName{Namespace: "golden", Name: "fedora"}, ds))
	require.Equal(t, &cdiv1.DataVolumeSourcePVC{Namespace: "golden", Name: "fedora-222222222222"}, ds.Spec.Source.PVC)
	require.Equal(t, "fedora-cron", ds.Labels[cdi.LabelDataImportCron])

	foreign := newActivities(t, testCron(), &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "fedora"}})
	err := foreign.PointDataSource(ctx, target)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeDataSourceNotManaged, app.Type())
}

func TestWaitImportedEndsOnSucceededOrFailed(t *testing.T) {
	ctx := context.Background()
	ok := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "good"}, Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded}}
	bad := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "bad"}, Status: cdiv1.DataVolumeStatus{
		Phase:      cdiv1.Failed,
		Conditions: []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Message: "Unsupported qcow2 version"}},
	}}
	a := newActivities(t, ok, bad)
	require.NoError(t, a.WaitImported(ctx, cdi.ImportTarget{Cron: testRef, DataVolume: "good"}))
	err := a.WaitImported(ctx, cdi.ImportTarget{Cron: testRef, DataVolume: "bad"})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeImportFailed, app.Type())
	require.Contains(t, err.Error(), "Unsupported qcow2 version")
	err = a.WaitImported(ctx, cdi.ImportTarget{Cron: testRef, DataVolume: "gone"})
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeDataVolumeGone, app.Type())
}

func TestRecordPollAnnotatesTheCronAsUpstreamsPoller(t *testing.T) {
	ctx := context.Background()
	a := newActivities(t, testCron())
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	require.NoError(t, a.RecordPoll(ctx, cdi.PollRecord{Cron: testRef, Time: at, Digest: "etag:7"}))
	require.NoError(t, a.RecordPoll(ctx, cdi.PollRecord{Cron: testRef, Time: at.Add(time.Minute)}))
	cron := &cdiv1.DataImportCron{}
	require.NoError(t, a.Client.Get(ctx, types.NamespacedName{Namespace: "golden", Name: "fedora-cron"}, cron))
	require.Equal(t, "2026-11-23T09:01:00Z", cron.Annotations[cdi.AnnLastCronTime], "the newest poll, in UTC")
	require.Equal(t, "etag:7", cron.Annotations[cdi.AnnSourceDesiredDigest], "a poll that found no digest keeps the last one")
	err := a.RecordPoll(ctx, cdi.PollRecord{Cron: cdi.CronRef{Namespace: "golden", Name: "fedora-cron", UID: "uid-old"}, Time: at})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeCronGone, app.Type())
}
