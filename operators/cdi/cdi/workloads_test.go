package cdi

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
)

var install = Install{Namespace: "cdi-ns", Image: "virtflow.local/virtflow:abc", TemporalAddress: "10.244.0.1:7233"}

func cr() client.Object { return &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}} }

func byKind(objs []client.Object) map[string]client.Object {
	out := map[string]client.Object{}
	for _, o := range objs {
		out[o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName()] = o
	}
	return out
}

func TestAPIServerGetsOnlyThePrivateKeyAndServesTheDataVolumeAndDataImportCronWebhooks(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, cr(), "cdi-apiserver")
	require.NoError(t, err)
	d := objs[0].(*appsv1.Deployment)
	require.Equal(t, "cdi-ns", d.Namespace)
	pod := d.Spec.Template.Spec
	require.Equal(t, "cdi-apiserver", pod.ServiceAccountName)
	require.True(t, *pod.Containers[0].SecurityContext.RunAsNonRoot)
	projected := map[string][]string{}
	for _, v := range pod.Volumes {
		for _, item := range v.Secret.Items {
			projected[v.Secret.SecretName] = append(projected[v.Secret.SecretName], item.Key)
		}
	}
	require.Equal(t, []string{cdiapi.PrivateKeyFile}, projected[SigningKeySecret])
	require.Equal(t, []string{webhookcert.CertFile, webhookcert.KeyFile}, projected[APIServerCerts])

	all := byKind(objs)
	key := all["Secret/"+SigningKeySecret].(*corev1.Secret)
	_, err = cdiapi.ParsePrivateKey(key.Data[cdiapi.PrivateKeyFile])
	require.NoError(t, err)
	hook := all["ValidatingWebhookConfiguration/"+DataVolumeHook].(*admissionregistrationv1.ValidatingWebhookConfiguration)
	require.Equal(t, "datavolume-validate.cdi.kubevirt.io", hook.Webhooks[0].Name)
	require.Equal(t, APIService, hook.Webhooks[0].ClientConfig.Service.Name)
	cron := all["ValidatingWebhookConfiguration/"+DataImportCronHook].(*admissionregistrationv1.ValidatingWebhookConfiguration)
	require.Equal(t, "dataimportcron-validate.cdi.kubevirt.io", cron.Webhooks[0].Name)
	require.Equal(t, "/dataimportcron-validate", *cron.Webhooks[0].ClientConfig.Service.Path)
	require.Equal(t, []string{"dataimportcrons"}, cron.Webhooks[0].Rules[0].Resources)
	require.Contains(t, all, "APIService/v1beta1.upload.cdi.kubevirt.io")
	require.Contains(t, all, "Service/"+APIService)
}

func TestSigningKeyIsKeptAcrossRenders(t *testing.T) {
	first, err := install.Render(context.Background(), nil, cr(), "cdi-apiserver")
	require.NoError(t, err)
	key := byKind(first)["Secret/"+SigningKeySecret].(*corev1.Secret)
	key.TypeMeta = metav1.TypeMeta{}
	c := fake.NewClientBuilder().WithObjects(key).Build()
	again, err := install.Render(context.Background(), c, cr(), "cdi-apiserver")
	require.NoError(t, err)
	require.Equal(t, key.Data, byKind(again)["Secret/"+SigningKeySecret].(*corev1.Secret).Data)
}

func TestUploadProxyCertificateWaitsForAndNamesTheServiceIP(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	objs, err := install.Render(context.Background(), c, cr(), "cdi-uploadproxy")
	require.NoError(t, err)
	require.NotContains(t, byKind(objs), "Secret/"+UploadProxyCerts, "no certificate before the Service has its IP")
	require.Contains(t, byKind(objs), "Service/"+UploadProxy)

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "cdi-ns", Name: UploadProxy}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.42"}}
	require.NoError(t, c.Create(context.Background(), svc))
	objs, err = install.Render(context.Background(), c, cr(), "cdi-uploadproxy")
	require.NoError(t, err)
	all := byKind(objs)
	certs := all["Secret/"+UploadProxyCerts].(*corev1.Secret)
	bundle := all["ConfigMap/"+cdiconfig.UploadProxyBundle].(*corev1.ConfigMap).Data[cdiconfig.BundleKey]
	b, _ := pem.Decode(certs.Data[webhookcert.CertFile])
	leaf, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM([]byte(bundle)))
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "10.96.0.42", Roots: roots})
	require.NoError(t, err, "a client on the node trusts the proxy at its cluster IP with CDIConfig's CA")
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "cdi-uploadproxy.cdi-ns.svc", Roots: roots})
	require.NoError(t, err)
}
