package kubevirt

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
	"github.com/virtflow/virtflow/operators/kubevirt/virtapi"
)

// virt-api's names, as upstream's virt-operator creates them.
const (
	virtAPIName      = "virt-api"
	virtAPICerts     = "kubevirt-virt-api-certs"
	VirtAPICertDir   = "/etc/virt-api/certificates"
	APIServiceName   = "v1.subresources.kubevirt.io"
	VirtAPIValidator = "virt-api-validator"
	VirtAPIMutator   = "virt-api-mutator"
)

// virtAPI is virt-api's Deployment, its serving certificate, Service,
// aggregated API registration and webhook configurations, all trusting
// the certificate's CA.
func (in Install) virtAPI(ctx context.Context, c client.Reader, owner client.Object) ([]client.Object, error) {
	ns := owner.GetNamespace()
	l := labels(virtAPIName)
	replicas, err := apiReplicas(ctx, c, owner)
	if err != nil {
		return nil, err
	}
	certs, bundle, err := workloads.ServingCert(ctx, c, ns, virtAPICerts, []string{virtAPIName + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	cc := workloads.ServiceClientConfig(ns, virtAPIName, bundle)
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: VirtAPIValidator, Labels: l},
		Webhooks:   virtadmission.ValidatingWebhooks(cc),
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: VirtAPIMutator, Labels: l},
		Webhooks:   virtadmission.MutatingWebhooks(cc),
	}
	d := in.virtAPIDeployment(ns)
	pdb := replicated(d, replicas)
	objs := []client.Object{
		d, certs, workloads.Service(ns, virtAPIName, selector(virtAPIName), l),
		workloads.APIService(virtapi.SubresourceGroup, virtapi.SubresourceVersion, ns, virtAPIName, bundle, l), validating, mutating,
	}
	return append(append(objs, identity(ns, virtAPIName)...), pdb), nil
}

func (in Install) virtAPIDeployment(ns string) *appsv1.Deployment {
	c := workloads.Container(in.Image, virtAPIName, virtAPIName, []string{"--cert-dir=" + VirtAPICertDir, "--node-agent-tls-dir=" + HandlerClientCertDir})
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: virtAPIName, ContainerPort: workloads.ServingPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = workloads.NonRoot()
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "certificates", MountPath: VirtAPICertDir, ReadOnly: true},
		{Name: HandlerClientCerts, MountPath: HandlerClientCertDir, ReadOnly: true},
	}
	return workloads.Deployment(ns, virtAPIName, "kubevirt-apiserver", labels(virtAPIName), selector(virtAPIName), c,
		workloads.ServingVolume(virtAPICerts), handlerTLSVolume(HandlerClientCerts))
}
