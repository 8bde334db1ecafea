package datavolume

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

func TestProgressIsPublishedUnderCDIMetricNames(t *testing.T) {
	imp := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{UID: "u-import"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://x"}}}}
	clone := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{UID: "u-clone"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "a", Name: "b"}}}}
	recordProgress(imp, "42.50%")
	recordProgress(clone, "10.00%")
	recordProgress(imp, "N/A")
	require.Equal(t, 42.5, testutil.ToFloat64(importProgress.WithLabelValues("u-import")))
	require.Equal(t, 10.0, testutil.ToFloat64(cloneProgress.WithLabelValues("u-clone")))
	forgetProgress(imp)
	require.Equal(t, 0, testutil.CollectAndCount(importProgress))
}
