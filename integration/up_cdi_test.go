//go:build integration

package integration

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/virtctl"
)

// cdiComponentsArePods checks that cdi-operator runs cdi-apiserver,
// cdi-deployment and cdi-uploadproxy as Ready pods, that the DataVolume
// webhook is cdi-apiserver's, and that virtctl image-upload, run on the
// node as a user does, finds the proxy and its CA in CDIConfig (no
// --insecure, no URL) and uploads through the proxy pod into a claim.
func cdiComponentsArePods(t *testing.T, c crclient.Client, dataDir string) {
	ctx := context.Background()
	pods := labelledPods(t, c, "cdi.kubevirt.io", "cdi-apiserver", "cdi-deployment", "cdi-uploadproxy")
	for name, p := range pods {
		require.True(t, *p.Spec.Containers[0].SecurityContext.RunAsNonRoot, "%s runs as non-root", name)
	}
	two := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "two-sources"},
		Spec: cdiv1.DataVolumeSpec{
			Source: &cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}, HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://example.com/x"}},
			Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")},
			}},
		},
	}
	err := c.Create(ctx, two, crclient.DryRunAll)
	require.ErrorContains(t, err, `admission webhook "datavolume-validate.cdi.kubevirt.io" denied the request`)
	twoImports := &cdiv1.VolumeImportSource{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "two-sources"},
		Spec: cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{Blank: two.Spec.Source.Blank, HTTP: two.Spec.Source.HTTP}}}
	require.EqualError(t, c.Create(ctx, twoImports, crclient.DryRunAll),
		`admission webhook "populator-validate.cdi.kubevirt.io" denied the request:  Multiple VolumeImport sources`)

	require.Eventually(t, func() bool {
		cfg := &cdiv1.CDIConfig{}
		return c.Get(ctx, crclient.ObjectKey{Name: "config"}, cfg) == nil && cfg.Status.UploadProxyURL != nil &&
			cfg.Status.UploadProxyCA != nil && strings.HasPrefix(*cfg.Status.UploadProxyURL, "https://10.96.")
	}, time.Minute, 250*time.Millisecond, "CDIConfig does not name the proxy's Service and CA")
	images := testImages(t)
	var out bytes.Buffer
	err = virtctl.Main(ctx, []string{"--kubeconfig", filepath.Join(dataDir, "kubernetes", "kubeconfig"), "-n", "default",
		"image-upload", "dv", "up-upload", "--size", "64Mi", "--image-path", filepath.Join(images, "disk.qcow2"),
		"--force-bind", "--storage-class", platform.HostpathStorageClass}, &out)
	require.NoError(t, err, out.String())
	require.Contains(t, out.String(), "Processing completed successfully")
	dv := &cdiv1.DataVolume{}
	require.NoError(t, c.Get(ctx, crclient.ObjectKey{Namespace: "default", Name: "up-upload"}, dv))
	require.Equal(t, cdiv1.Succeeded, dv.Status.Phase)
	// CDI's uninstall strategy: a DataVolume keeps CDI installed.
	cdiCR := &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: operands.CDIName}}
	require.ErrorContains(t, c.Delete(ctx, cdiCR, crclient.DryRunAll),
		`admission webhook "cdi-validate.cdi.kubevirt.io" denied the request: rejecting the uninstall request, since there are still `)
	require.NoError(t, c.Delete(ctx, dv))
}

// labelledPods waits until each named component (the value of label) has
// a Ready pod in the platform's namespace and returns them.
func labelledPods(t *testing.T, c crclient.Client, label string, names ...string) map[string]corev1.Pod {
	out := map[string]corev1.Pod{}
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		if c.List(context.Background(), pods, crclient.InNamespace(platform.Namespace), crclient.HasLabels{label}) != nil {
			return false
		}
		clear(out)
		for _, p := range pods.Items {
			if podReady(p) && p.DeletionTimestamp == nil {
				out[p.Labels[label]] = p
			}
		}
		for _, n := range names {
			if _, ok := out[n]; !ok {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "%v have no Ready pods", names)
	return out
}

// hostpathCSIIsAPod checks that the hostpath-provisioner-operator runs the
// CSI driver as a DaemonSet pod beside the real external-provisioner, and
// that the kubelet registered the driver through the registrar sidecar.
func hostpathCSIIsAPod(t *testing.T, c crclient.Client) {
	pod := labelledPods(t, c, "k8s-app", "hostpath-provisioner-csi")["hostpath-provisioner-csi"]
	images := map[string]string{}
	for _, ctr := range pod.Spec.Containers {
		images[ctr.Name] = ctr.Image
	}
	require.True(t, strings.HasPrefix(images["csi-provisioner"], platform.CSIProvisionerRepository+":v"), images["csi-provisioner"])
	require.True(t, strings.HasPrefix(images["hostpath-provisioner"], platform.ComponentsRepository+":"), images["hostpath-provisioner"])
	require.Eventually(t, func() bool {
		node := &storagev1.CSINode{}
		if c.Get(context.Background(), crclient.ObjectKey{Name: platform.NodeName}, node) != nil {
			return false
		}
		for _, d := range node.Spec.Drivers {
			if d.Name == "kubevirt.io.hostpath-provisioner" {
				return true
			}
		}
		return false
	}, time.Minute, 250*time.Millisecond, "the kubelet has not registered the driver")
}
