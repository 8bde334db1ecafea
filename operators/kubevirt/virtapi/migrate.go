package virtapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MigrationGenerateName prefixes the migrations the migrate subresource
// creates, as upstream's, so tools that recognise them by name still do.
const MigrationGenerateName = "kubevirt-migrate-vm-"

// Migrate asks for a live migration of the VM's running instance by
// creating a VirtualMachineInstanceMigration. Whether the VMI may move is
// left to the migration's admission, whose refusal comes back wrapped in a
// 500 as upstream's does: clients match on that text.
func (a *Actions) Migrate(ctx context.Context, ns, name string, opts kubevirtv1.MigrateOptions) error {
	if err := a.getVM(ctx, ns, name); err != nil {
		return err
	}
	vmi, err := a.getVMI(ctx, ns, name)
	if err != nil {
		return err
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return vmConflict(name, "VM is not running")
	}
	mig := &kubevirtv1.VirtualMachineInstanceMigration{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: MigrationGenerateName},
		Spec:       kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: name, AddedNodeSelector: opts.AddedNodeSelector},
	}
	if err := a.Client.Create(ctx, mig, &client.CreateOptions{DryRun: opts.DryRun}); err != nil {
		return internal("%s", err.Error())
	}
	return nil
}

// getVM only checks the VM is there: a migration names its VMI, but
// upstream answers for VMs alone.
func (a *Actions) getVM(ctx context.Context, ns, name string) error {
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &kubevirtv1.VirtualMachine{})
	if apierrors.IsNotFound(err) {
		return &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachine.kubevirt.io %q not found", name)}
	}
	if err != nil {
		return internal("unable to retrieve vm [%s]: %v", name, err)
	}
	return nil
}

func (a *Actions) getVMI(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi)
	if apierrors.IsNotFound(err) {
		return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
	}
	if err != nil {
		return nil, internal("unable to retrieve vmi [%s]: %v", name, err)
	}
	return vmi, nil
}

// decodeOptions reads a subresource's optional body into opts, JSON or
// YAML as upstream takes it; an empty one, with or without a
// Content-Length, means no options.
func decodeOptions(r *http.Request, opts any) error {
	err := yaml.NewYAMLOrJSONDecoder(r.Body, 1024).Decode(opts)
	if err != nil && !errors.Is(err, io.EOF) {
		return badRequest("Can not unmarshal Request body to struct, error: %v", err)
	}
	return nil
}

// migrate serves PUT .../virtualmachines/{name}/migrate.
func (s *Server) migrate(r *http.Request, ns, name string) error {
	var opts kubevirtv1.MigrateOptions
	if err := decodeOptions(r, &opts); err != nil {
		return err
	}
	return s.Actions.Migrate(r.Context(), ns, name, opts)
}
