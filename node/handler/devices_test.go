package handler

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestCredentialsTheGuestAgentWouldSetAreReportedNotSynchronized(t *testing.T) {
	v := &kubevirtv1.VirtualMachineInstance{}
	v.Spec.AccessCredentials = []kubevirtv1.AccessCredential{{SSHPublicKey: &kubevirtv1.SSHPublicKeyAccessCredential{
		PropagationMethod: kubevirtv1.SSHPublicKeyAccessCredentialPropagationMethod{NoCloud: &kubevirtv1.NoCloudSSHPublicKeyAccessCredentialPropagation{}},
	}}}
	reportAccessCredentials(v)
	require.Empty(t, v.Status.Conditions, "NoCloud keys are set by cloud-init at boot")

	v.Spec.AccessCredentials = append(v.Spec.AccessCredentials, kubevirtv1.AccessCredential{UserPassword: &kubevirtv1.UserPasswordAccessCredential{}})
	reportAccessCredentials(v)
	require.Len(t, v.Status.Conditions, 1)
	c := v.Status.Conditions[0]
	require.Equal(t, kubevirtv1.VirtualMachineInstanceAccessCredentialsSynchronized, c.Type)
	require.Equal(t, corev1.ConditionFalse, c.Status)
	require.Equal(t, "AccessCredentialsSyncFailed", c.Reason)
}

func TestAReadinessProbeMakesTheVMIReadyOnlyWithItsPod(t *testing.T) {
	v := &kubevirtv1.VirtualMachineInstance{}
	pod := &corev1.Pod{}
	s, _ := probedReady(v, pod)
	require.Equal(t, corev1.ConditionTrue, s, "without a probe a running guest is ready")
	v.Spec.ReadinessProbe = &kubevirtv1.Probe{}
	s, reason := probedReady(v, pod)
	require.Equal(t, corev1.ConditionFalse, s)
	require.Equal(t, "PodNotReady", reason)
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	s, _ = probedReady(v, pod)
	require.Equal(t, corev1.ConditionTrue, s)
}
