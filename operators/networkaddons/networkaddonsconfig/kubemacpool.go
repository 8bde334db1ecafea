package networkaddonsconfig

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

// Names of kubemacpool's objects, as upstream's cluster-network-addons-
// operator creates them.
const (
	// KubeMacPool is the component's name in the CR's conditions.
	KubeMacPool = "kubemacpool"
	// KubeMacPoolManager is the Deployment.
	KubeMacPoolManager = "kubemacpool-mac-controller-manager"
	// KubeMacPoolService is the webhook's Service and its serving Secret.
	KubeMacPoolService = "kubemacpool-service"
	// KubeMacPoolMutator is the MutatingWebhookConfiguration.
	KubeMacPoolMutator = "kubemacpool-mutator"
	kubeMacPoolSA      = "kubemacpool-sa"
)

func kmpLabels() map[string]string {
	return map[string]string{"control-plane": "mac-controller-manager", "app": "kubemacpool",
		"app.kubernetes.io/managed-by": "cnao-operator", "app.kubernetes.io/component": "network"}
}

func kmpSelector() map[string]string {
	return map[string]string{"control-plane": "mac-controller-manager"}
}

// kubeMacPool is kubemacpool: its Deployment first (whose readiness is the
// component's), the range it hands out, its serving certificate, Service,
// webhook configuration and identity.
func (in Install) kubeMacPool(ctx context.Context, r client.Reader, owner client.Object) ([]client.Object, error) {
	ns, l := in.Namespace, kmpLabels()
	rng, err := macRange(ctx, r, ns, owner)
	if err != nil {
		return nil, err
	}
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, KubeMacPoolService, []string{KubeMacPoolService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	objs := []client.Object{in.kmpDeployment(), rangeConfigMap(ns, rng, l), certs,
		workloads.Service(ns, KubeMacPoolService, kmpSelector(), l),
		Mutator(workloads.ServiceClientConfig(ns, KubeMacPoolService, bundle), l)}
	return append(objs, KubeMacPoolRBAC(ns)...), nil
}

// kmpDeployment runs `virtflow kubemacpool` with the range from its
// ConfigMap, as upstream's pod takes it.
func (in Install) kmpDeployment() *appsv1.Deployment {
	c := workloads.Container(in.Image, "manager", "kubemacpool", []string{"--cert-dir=" + kubemacpool.CertDir, "--wait-time=300"})
	c.Env = append(c.Env, configMapEnv(kubemacpool.RangeStartEnv, RangeStartKey), configMapEnv(kubemacpool.RangeEndEnv, RangeEndKey))
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "webhook-server", ContainerPort: workloads.ServingPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = workloads.NonRoot()
	c.VolumeMounts = []corev1.VolumeMount{{Name: "certificates", MountPath: kubemacpool.CertDir, ReadOnly: true}}
	d := workloads.Deployment(in.Namespace, KubeMacPoolManager, kubeMacPoolSA, kmpLabels(), kmpSelector(), c, workloads.ServingVolume(KubeMacPoolService))
	// One pool holds the cluster's MACs: the old pod stops before the new
	// one rebuilds, so two pools never hand out MACs side by side.
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To(int64(5))
	return d
}

func configMapEnv(name, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: RangeConfig}, Key: key,
	}}}
}

// Mutator is upstream's kubemacpool-mutator for VirtualMachines: create and
// update in every namespace the opt-out selector manages, reached through
// cc. kubemacpool's pod webhook is not served (pods are opt-in upstream and
// virtflow's VMs get their MACs on the VM).
func Mutator(cc webhookconfig.ClientConfig, l map[string]string) *admissionregistrationv1.MutatingWebhookConfiguration {
	hook := webhookconfig.Mutating(cc, kubemacpool.VMWebhookName, kubemacpool.MutatePath,
		webhookconfig.Rules(kubevirtv1.SchemeGroupVersion.Group, kubevirtv1.SchemeGroupVersion.Version, "virtualmachines", webhookconfig.CreateUpdate...))
	hook.NamespaceSelector = kubemacpool.NamespaceSelector(kubemacpool.OptOut)
	// The webhook reserves MACs except on dry run, as upstream declares.
	hook.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun)
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: KubeMacPoolMutator, Labels: l},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{hook},
	}
}
