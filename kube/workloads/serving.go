package workloads

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/webhookcert"
)

// ServingPort is where a component serves TLS behind its Service's 443.
const ServingPort = 8443

// ServingCert is a Secret holding a CA and a serving certificate for hosts.
// The Secret's current certificates are kept while valid for hosts, so a
// render changes nothing until a renewal is due; the PEM bundle returned is
// what clients should trust.
func ServingCert(ctx context.Context, c client.Reader, ns, name string, hosts []string, labels map[string]string) (*corev1.Secret, []byte, error) {
	data, err := ExistingSecretData(ctx, c, ns, name)
	if err != nil {
		return nil, nil, err
	}
	bundle, _, err := webhookcert.EnsureData(data, hosts, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("issuing the certificate in %s: %w", name, err)
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Data:       data,
	}, bundle, nil
}

// ExistingSecretData is a copy of a Secret's data, empty when there is
// none; renders use it to keep keys they generated once.
func ExistingSecretData(ctx context.Context, c client.Reader, ns, name string) (map[string][]byte, error) {
	data := map[string][]byte{}
	if c == nil {
		return data, nil
	}
	old := &corev1.Secret{}
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, old)
	if client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if old.Data != nil {
		data = maps.Clone(old.Data)
	}
	return data, nil
}

// ServingVolume projects only the serving certificate and key of a Secret
// from ServingCert: the CA's key stays out of the pod.
func ServingVolume(secret string) corev1.Volume {
	return SecretVolume("certificates", secret, webhookcert.CertFile, webhookcert.KeyFile)
}

// ServiceClientConfig has the API server call webhooks at paths of the
// Service ns/name on 443, trusting bundle.
func ServiceClientConfig(ns, name string, bundle []byte) func(path string) admissionregistrationv1.WebhookClientConfig {
	return func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{
			Service:  &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name, Path: ptr.To(path), Port: ptr.To(int32(443))},
			CABundle: bundle,
		}
	}
}

// Service is a ClusterIP Service sending port 443 to ServingPort of the
// pods selector picks.
func Service(ns, name string, selector, labels map[string]string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.ServiceSpec{
			// Explicit, so an in-process platform's ExternalName Service
			// of the same name becomes this one (its leftover externalName
			// is ignored for a ClusterIP Service).
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(ServingPort), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// APIService registers group/version with the aggregator, served by the
// Service ns/service on 443 with a certificate chaining to bundle.
func APIService(group, version, ns, service string, bundle []byte, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	u.SetName(version + "." + group)
	u.SetLabels(labels)
	u.Object["spec"] = map[string]any{
		"group": group, "version": version,
		"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		"caBundle": base64.StdEncoding.EncodeToString(bundle),
		"service":  map[string]any{"namespace": ns, "name": service, "port": int64(443)},
	}
	return u
}
