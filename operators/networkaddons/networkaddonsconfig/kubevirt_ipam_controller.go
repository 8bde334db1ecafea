package networkaddonsconfig

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/ipamcontroller"
)

// Names of kubevirt-ipam-controller's objects, as upstream's
// cluster-network-addons-operator creates them.
const (
	// KubevirtIpamController is the component's name in the CR's
	// conditions.
	KubevirtIpamController = "kubevirt-ipam-controller"
	// IpamControllerManager is the Deployment and its ServiceAccount.
	IpamControllerManager = "kubevirt-ipam-controller-manager"
	// IpamControllerService is the webhook's Service and its serving
	// Secret (upstream's Secret name where a service CA issues it).
	IpamControllerService = "kubevirt-ipam-controller-webhook-service"
	// IpamControllerMutator is the MutatingWebhookConfiguration.
	IpamControllerMutator = "kubevirt-ipam-controller-mutating-webhook-configuration"
	// IpamControllerRole and IpamControllerBinding are its ClusterRole and
	// ClusterRoleBinding.
	IpamControllerRole    = "kubevirt-ipam-controller-manager-role"
	IpamControllerBinding = "kubevirt-ipam-controller-manager-rolebinding"
)

func ipamLabels() map[string]string {
	return map[string]string{"app": "ipam-virt-workloads", "control-plane": "manager",
		"app.kubernetes.io/managed-by": "cnao-operator", "app.kubernetes.io/component": "network"}
}

func ipamSelector() map[string]string {
	return map[string]string{"app": "ipam-virt-workloads", "control-plane": "manager"}
}

// kubevirtIpamController is kubevirt-ipam-controller: its Deployment first
// (whose readiness is the component's), the IPAMClaim CRD, its serving
// certificate, Service, webhook configuration and identity.
func (in Install) kubevirtIpamController(ctx context.Context, r client.Reader, owner client.Object) ([]client.Object, error) {
	ns, l := in.Namespace, ipamLabels()
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, IpamControllerService, []string{IpamControllerService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	objs := []client.Object{in.ipamDeployment(defaultNetNADNamespace(owner)), IPAMClaimCRD(), certs,
		workloads.Service(ns, IpamControllerService, ipamSelector(), l),
		IpamMutator(workloads.ServiceClientConfig(ns, IpamControllerService, bundle), l)}
	return append(objs, IpamControllerRBAC(ns)...), nil
}

// defaultNetNADNamespace is spec.kubevirtIpamController's
// defaultNetworkNADNamespace, upstream's default when unset.
func defaultNetNADNamespace(owner client.Object) string {
	if u, ok := owner.(*unstructured.Unstructured); ok {
		if v, _, _ := unstructured.NestedString(u.Object, "spec", "kubevirtIpamController", "defaultNetworkNADNamespace"); v != "" {
			return v
		}
	}
	return ipamcontroller.DefaultNetworkNADNamespace
}

// ipamDeployment runs `virtflow kubevirt-ipam-controller` with upstream's
// flags.
func (in Install) ipamDeployment(defaultNetNS string) *appsv1.Deployment {
	c := workloads.Container(in.Image, "manager", KubevirtIpamController, []string{
		"--certificates-dir=" + ipamcontroller.CertDir, "--default-network-nad-namespace=" + defaultNetNS})
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "webhook-server", ContainerPort: workloads.ServingPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = workloads.NonRoot()
	c.VolumeMounts = []corev1.VolumeMount{{Name: "certificates", MountPath: ipamcontroller.CertDir, ReadOnly: true}}
	d := workloads.Deployment(in.Namespace, IpamControllerManager, IpamControllerManager, ipamLabels(), ipamSelector(), c, workloads.ServingVolume(IpamControllerService))
	spec := &d.Spec.Template.Spec
	spec.PriorityClassName, spec.TerminationGracePeriodSeconds = "system-cluster-critical", ptr.To(int64(10))
	d.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/default-container": "manager"}
	return d
}

// IpamMutator is upstream's webhook on launcher pods' creates and updates,
// failing closed: a launcher admitted without its claim would take new
// addresses.
func IpamMutator(cc webhookconfig.ClientConfig, l map[string]string) *admissionregistrationv1.MutatingWebhookConfiguration {
	hook := webhookconfig.Mutating(cc, ipamcontroller.WebhookName, ipamcontroller.MutatePath,
		webhookconfig.Rules("", "v1", "pods", webhookconfig.CreateUpdate...))
	hook.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{kubevirtv1.AppLabel: "virt-launcher"}}
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: IpamControllerMutator, Labels: l},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{hook},
	}
}

// IpamControllerAccess is what the controller's code does, narrower than
// upstream's role: it reads VMs, VMIs and NetworkAttachmentDefinitions,
// creates IPAMClaims and updates them (their finalizer). It reads no pods
// (upstream's cache of them serves nothing), elects no leader and records
// no events, so it has no Role; the finalizers rule lets its claims block
// their owner's deletion where the API server enforces owner references.
func IpamControllerAccess() workloads.Access {
	kv := kubevirtv1.SchemeGroupVersion.Group
	return workloads.Access{Role: IpamControllerRole, Cluster: []rbacv1.PolicyRule{
		workloads.Rule(kv, workloads.Read, "virtualmachines", "virtualmachineinstances"),
		workloads.Rule(kv, []string{"update"}, "virtualmachines/finalizers", "virtualmachineinstances/finalizers"),
		workloads.Rule(ipamv1alpha1.GroupName, []string{"get", "list"}, "network-attachment-definitions"),
		workloads.Rule(ipamv1alpha1.GroupName, []string{"get", "list", "watch", "create", "update"}, "ipamclaims"),
	}}
}

// IpamControllerRBAC is the controller's ServiceAccount, ClusterRole and
// ClusterRoleBinding (upstream's names) in ns.
func IpamControllerRBAC(ns string) []client.Object {
	objs := workloads.Identity(ns, IpamControllerManager, IpamControllerAccess(), ipamLabels())
	for _, o := range objs {
		if b, ok := o.(*rbacv1.ClusterRoleBinding); ok {
			b.Name = IpamControllerBinding
		}
	}
	return objs
}
