package platform

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// waitAdmitting waits until a VirtualMachine would be admitted, a dry run
// through every webhook VMs pass (virt-api's, kubemacpool's). After a
// restart the HyperConverged's Available condition is the one stored
// before it, while components that lost the API server (a leader's lease)
// are still restarting: "up" is said only once VMs can be created.
func (p *Platform) waitAdmitting(ctx context.Context, c client.Client) error {
	said := false
	for {
		err := c.Create(ctx, readinessVM(), client.DryRunAll)
		if err == nil {
			return nil
		}
		if !said {
			p.say("waiting for the VM admission webhooks: " + err.Error())
			said = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// readinessVM is a VirtualMachine the webhooks admit, never stored.
func readinessVM() *kubevirtv1.VirtualMachine {
	halted := kubevirtv1.RunStrategyHalted
	mem := resource.MustParse("64Mi")
	return &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "virtflow-admission-probe"},
		Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &halted, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
			Spec: kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{Memory: &kubevirtv1.Memory{Guest: &mem}}},
		}},
	}
}
