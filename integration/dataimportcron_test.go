//go:build integration

package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
)

// serveWithETag serves dir with an ETag of each file's sha256, so a
// replaced file is a new version to a poller; hashes are cached per size
// and modification time, since imports read in many ranged requests.
func serveWithETag(t *testing.T, dir string) string {
	t.Helper()
	type version struct {
		size int64
		mod  time.Time
	}
	var mu sync.Mutex
	cache := map[string]version{}
	sums := map[string]string{}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := filepath.Join(dir, filepath.Clean(r.URL.Path))
		if st, err := os.Stat(path); err == nil {
			mu.Lock()
			v := version{st.Size(), st.ModTime()}
			if cache[path] != v {
				f, err := os.Open(path)
				require.NoError(t, err)
				h := sha256.New()
				_, err = io.Copy(h, f)
				f.Close()
				require.NoError(t, err)
				cache[path], sums[path] = v, hex.EncodeToString(h.Sum(nil))
			}
			w.Header().Set("ETag", `"`+sums[path]+`"`)
			mu.Unlock()
		}
		files.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	l, err := net.Listen("tcp", net.JoinHostPort(hostForPods(), "0"))
	require.NoError(t, err)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func goldenCron(ns, url string) *cdiv1.DataImportCron {
	none := cdiv1.DataImportCronRetainNone
	return &cdiv1.DataImportCron{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "golden-cron"},
		Spec: cdiv1.DataImportCronSpec{
			Schedule: "*/1 * * * *", ManagedDataSource: "golden", ImportsToKeep: ptr.To(int32(3)), RetentionPolicy: &none,
			Template: cdiv1.DataVolume{Spec: cdiv1.DataVolumeSpec{
				Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
				Storage: &cdiv1.StorageSpec{
					StorageClassName: ptr.To(testStorageClass),
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Mi")}},
				},
			}},
		},
	}
}

// waitServed waits until the DataSource is Ready on a Succeeded
// DataVolume other than previous, and returns that DataVolume's name.
func (s *space) waitServed(dataSource, previous string) string {
	t := s.t
	t.Helper()
	served := ""
	require.Eventually(t, func() bool {
		ds := &cdiv1.DataSource{}
		if err := s.c.Get(context.Background(), s.key(dataSource), ds); err != nil {
			return false
		}
		pvc := ds.Spec.Source.PVC
		if pvc == nil || pvc.Name == previous || len(ds.Status.Conditions) == 0 || ds.Status.Conditions[0].Status != corev1.ConditionTrue {
			return false
		}
		served = pvc.Name
		return s.getDV(served).Status.Phase == cdiv1.Succeeded
	}, 3*time.Minute, 500*time.Millisecond, "DataSource %s never served a new import after %q", dataSource, previous)
	return served
}

// pollThatImported finds the schedule's poll run that imported dv.
func pollThatImported(t *testing.T, tc client.Client, scheduleID, dv string) string {
	t.Helper()
	ctx := context.Background()
	desc, err := tc.ScheduleClient().GetHandle(ctx, scheduleID).Describe(ctx)
	require.NoError(t, err)
	for i := len(desc.Info.RecentActions) - 1; i >= 0; i-- {
		run := desc.Info.RecentActions[i].StartWorkflowResult
		if run == nil {
			continue
		}
		d, err := tc.DescribeWorkflowExecution(ctx, run.WorkflowID, "")
		require.NoError(t, err)
		var p cdic.CronProgress
		if payload := d.WorkflowExecutionInfo.GetMemo().GetFields()[cdic.ProgressMemoKey]; payload != nil {
			require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &p))
		}
		if p.Step == cdic.CronStepCompleted && p.DataVolume == dv {
			return run.WorkflowID
		}
	}
	t.Fatalf("no poll of schedule %s imported %s", scheduleID, dv)
	return ""
}

// A DataImportCron imports at once, serves the import through its
// DataSource, imports again when the source changes, keeps the previous
// import, reports UpToDate, and with retentionPolicy None takes its
// imports and schedule along when deleted.
func TestDataImportCronFollowsItsSource(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	images := testImages(t)
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.img")
	require.NoError(t, copyFile(filepath.Join(images, "disk.qcow2"), golden))
	url := serveWithETag(t, dir)
	ctx := context.Background()
	cron := goldenCron(s.ns, url+"/golden.img")
	require.NoError(t, s.c.Create(ctx, cron))
	defer deleteCron(t, s.c, n.tc, cron)

	first := s.waitServed("golden", "")
	require.Equal(t, referenceDigest(t, filepath.Join(images, "disk.qcow2"), 64<<20), fileDigest(t, s.diskOf(first)))

	// A new version of the file, in place, as an image mirror updates it.
	require.NoError(t, copyFile(filepath.Join(images, "disk.raw"), golden+".new"))
	require.NoError(t, os.Rename(golden+".new", golden))
	scheduleID := cdic.CronScheduleID(string(cron.UID))
	require.NoError(t, n.tc.ScheduleClient().GetHandle(ctx, scheduleID).Trigger(ctx, client.ScheduleTriggerOptions{}))

	second := s.waitServed("golden", first)
	require.Equal(t, referenceDigest(t, filepath.Join(images, "disk.raw"), 64<<20), fileDigest(t, s.diskOf(second)))
	require.Equal(t, cdiv1.Succeeded, s.getDV(first).Status.Phase, "with importsToKeep 3 the previous import stays")
	require.Eventually(t, func() bool {
		got := &cdiv1.DataImportCron{}
		require.NoError(t, s.c.Get(ctx, crclient.ObjectKeyFromObject(cron), got))
		up := cronCondition(got, cdiv1.DataImportCronUpToDate)
		return up.Status == corev1.ConditionTrue && up.Reason == "UpToDate" &&
			len(got.Status.CurrentImports) == 1 && got.Status.CurrentImports[0].DataVolumeName == second &&
			got.Status.LastImportedPVC != nil && got.Status.LastImportedPVC.Name == second &&
			got.Status.LastExecutionTimestamp != nil && got.Status.LastImportTimestamp != nil
	}, time.Minute, 500*time.Millisecond, "the cron reports the second import up to date")
	recordHistory(t, n.tc, "workflows/cdi/testdata/cron_completed.json", pollThatImported(t, n.tc, scheduleID, second))
}

func cronCondition(c *cdiv1.DataImportCron, typ cdiv1.DataImportCronConditionType) cdiv1.DataImportCronCondition {
	for _, cond := range c.Status.Conditions {
		if cond.Type == typ {
			return cond
		}
	}
	return cdiv1.DataImportCronCondition{}
}

// deleteCron deletes the cron and checks that retentionPolicy None took
// its DataVolumes, its DataSource and its schedule along.
func deleteCron(t *testing.T, c crclient.Client, tc client.Client, cron *cdiv1.DataImportCron) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, crclient.IgnoreNotFound(c.Delete(ctx, cron)))
	require.Eventually(t, func() bool {
		err := c.Get(ctx, crclient.ObjectKeyFromObject(cron), &cdiv1.DataImportCron{})
		dvs := &cdiv1.DataVolumeList{}
		require.NoError(t, c.List(ctx, dvs, crclient.InNamespace(cron.Namespace), crclient.MatchingLabels{cdic.LabelDataImportCron: cron.Name}))
		dsErr := c.Get(ctx, types.NamespacedName{Namespace: cron.Namespace, Name: cron.Spec.ManagedDataSource}, &cdiv1.DataSource{})
		return apierrors.IsNotFound(err) && len(dvs.Items) == 0 && apierrors.IsNotFound(dsErr)
	}, 2*time.Minute, 500*time.Millisecond, "DataImportCron %s and its imports were never removed", cron.Name)
	_, err := tc.ScheduleClient().GetHandle(ctx, cdic.CronScheduleID(string(cron.UID))).Describe(ctx)
	require.Error(t, err, "the schedule is gone")
}
