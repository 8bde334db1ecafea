package kubevirt

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/virtapi"
	"github.com/virtflow/virtflow/operators/webhookcert"
)

// virt-api's names, as upstream's virt-operator creates them.
const (
	virtAPIName      = "virt-api"
	virtAPICerts     = "kubevirt-virt-api-certs"
	VirtAPIPort      = 8443
	VirtAPICertDir   = "/etc/virt-api/certificates"
	APIServiceName   = "v1.subresources.kubevirt.io"
	VirtAPIValidator = "virt-api-validator"
	VirtAPIMutator   = "virt-api-mutator"
)

// virtAPI is virt-api's Deployment, its serving certificate, Service,
// aggregated API registration and webhook configurations, all trusting
// the certificate's CA.
func (in Install) virtAPI(ctx context.Context, c client.Reader, ns string) ([]client.Object, error) {
	certs, bundle, err := virtAPICertificates(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{
			Service:  &admissionregistrationv1.ServiceReference{Namespace: ns, Name: virtAPIName, Path: ptr.To(path), Port: ptr.To(int32(443))},
			CABundle: bundle,
		}
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: VirtAPIValidator, Labels: labels(virtAPIName)},
		Webhooks:   virtapi.ValidatingWebhooks(cc),
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: VirtAPIMutator, Labels: labels(virtAPIName)},
		Webhooks:   virtapi.MutatingWebhooks(cc),
	}
	objs := []client.Object{in.virtAPIDeployment(ns), certs, virtAPIService(ns), apiService(ns, bundle), validating, mutating}
	return append(objs, in.identity(ns, "kubevirt-apiserver")...), nil
}

// virtAPICertificates keeps the Secret's certificates while valid for the
// Service's name and issues new ones when not.
func virtAPICertificates(ctx context.Context, c client.Reader, ns string) (*corev1.Secret, []byte, error) {
	data := map[string][]byte{}
	if c != nil {
		old := &corev1.Secret{}
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: virtAPICerts}, old)
		if client.IgnoreNotFound(err) != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", virtAPICerts, err)
		}
		data = maps.Clone(old.Data)
		if data == nil {
			data = map[string][]byte{}
		}
	}
	host := virtAPIName + "." + ns + ".svc"
	bundle, _, err := webhookcert.EnsureData(data, []string{host}, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("issuing virt-api's certificate: %w", err)
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: virtAPICerts, Labels: labels(virtAPIName)},
		Data:       data,
	}, bundle, nil
}

func virtAPIService(ns string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: virtAPIName, Labels: labels(virtAPIName)},
		Spec: corev1.ServiceSpec{
			// Explicit, so an in-process platform's ExternalName Service
			// of the same name becomes this one (its leftover externalName
			// is ignored for a ClusterIP Service).
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{componentLabel: virtAPIName},
			Ports:    []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(VirtAPIPort), Protocol: corev1.ProtocolTCP}},
		},
	}
}

func apiService(ns string, bundle []byte) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	u.SetName(APIServiceName)
	u.SetLabels(labels(virtAPIName))
	u.Object["spec"] = map[string]any{
		"group": virtapi.SubresourceGroup, "version": virtapi.SubresourceVersion,
		"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		"caBundle": base64.StdEncoding.EncodeToString(bundle),
		"service":  map[string]any{"namespace": ns, "name": virtAPIName, "port": int64(443)},
	}
	return u
}

func (in Install) virtAPIDeployment(ns string) *appsv1.Deployment {
	l := labels(virtAPIName)
	c := in.container(virtAPIName, []string{"--cert-dir=" + VirtAPICertDir})
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "virt-api", ContainerPort: VirtAPIPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = nonRoot()
	c.VolumeMounts = []corev1.VolumeMount{{Name: "certificates", MountPath: VirtAPICertDir, ReadOnly: true}}
	certs := corev1.Volume{Name: "certificates", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: virtAPICerts,
		// The CA's key stays out of the pod.
		Items: []corev1.KeyToPath{{Key: webhookcert.CertFile, Path: webhookcert.CertFile}, {Key: webhookcert.KeyFile, Path: webhookcert.KeyFile}},
	}}}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: virtAPIName, Labels: l},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{componentLabel: virtAPIName}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName: "kubevirt-apiserver", Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{certs},
				},
			},
		},
	}
}
