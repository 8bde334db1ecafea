package createvm

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// finish creates vm (or adopts the one an earlier try of this run
// created), starts it when asked, records the results and prints it.
func finish(ctx context.Context, env stepenv.Env, vm *kubevirtv1.VirtualMachine, start bool, output string) error {
	adopted, err := createOrAdopt(ctx, env, vm, start)
	if err != nil {
		return err
	}
	if !adopted {
		env.Logf("VirtualMachine %s/%s created", vm.Namespace, vm.Name)
	}
	if start && needsStart(vm) {
		if err := startVM(ctx, env, vm.Namespace, vm.Name); err != nil && !(adopted && apierrors.IsConflict(err)) {
			return err
		}
	}
	if err := env.Results.WriteObject(vm); err != nil {
		return err
	}
	// Upstream's Tasks pass yaml, and their tests look for the VM's
	// apiVersion and kind there.
	return outputformat.PrintObject(env.Log, vm, vmKind, output)
}

// createOrAdopt creates vm, filling it in from the server. A VM of the same
// name that already is what this run would create (same labels,
// annotations and owners, and a spec the wanted one derives from) is taken
// as created by an earlier try of the run and vm becomes it; any other
// existing VM is upstream's "already exists" error. A VM with only a
// generateName cannot be recognised and is created again on a retry.
func createOrAdopt(ctx context.Context, env stepenv.Env, vm *kubevirtv1.VirtualMachine, start bool) (bool, error) {
	wanted := vm.DeepCopy()
	err := env.Client.Create(ctx, vm)
	if err == nil {
		return false, nil
	}
	if !apierrors.IsAlreadyExists(err) || wanted.Name == "" {
		return false, err
	}
	existing := &kubevirtv1.VirtualMachine{}
	if getErr := env.Client.Get(ctx, crclient.ObjectKeyFromObject(wanted), existing); getErr != nil {
		return false, fmt.Errorf("%w (and reading it: %v)", err, getErr)
	}
	if !isWanted(existing, wanted, start) {
		return false, err
	}
	env.Logf("VirtualMachine %s/%s already exists as this run creates it", wanted.Namespace, wanted.Name)
	existing.DeepCopyInto(vm)
	return true, nil
}

// isWanted tells whether existing is the VM wanted, as the server keeps it:
// the server may add labels, annotations and defaults but not change what
// the task set. Starting the VM changes its run strategy, so that is not
// compared when the task starts it.
func isWanted(existing, wanted *kubevirtv1.VirtualMachine, start bool) bool {
	if !equality.Semantic.DeepEqual(existing.OwnerReferences, wanted.OwnerReferences) {
		return false
	}
	if !contains(existing.Labels, wanted.Labels) || !contains(existing.Annotations, wanted.Annotations) {
		return false
	}
	have, want := existing.Spec.DeepCopy(), wanted.Spec.DeepCopy()
	if start {
		have.Running, have.RunStrategy = nil, nil
		want.Running, want.RunStrategy = nil, nil
	}
	return equality.Semantic.DeepDerivative(*want, *have)
}

// contains tells whether every entry of want is in have.
func contains(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
