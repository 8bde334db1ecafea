package createvm

import (
	"encoding/json"
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Output formats of the step's --output (-o): upstream prints the created
// VM in one of them, or not at all.
const (
	outputYAML = "yaml"
	outputJSON = "json"
)

// validOutput tells whether format is one --output accepts.
func validOutput(format string) bool {
	return format == "" || format == outputYAML || format == outputJSON
}

// printVM writes the created VM to the log in format; upstream's Tasks pass
// yaml, and their tests look for the VM's apiVersion and kind there.
func printVM(env stepenv.Env, vm *kubevirtv1.VirtualMachine, format string) error {
	if format == "" || env.Log == nil {
		return nil
	}
	out := vm.DeepCopy()
	out.APIVersion, out.Kind = kubevirtv1.GroupVersion.String(), "VirtualMachine"
	var data []byte
	var err error
	if format == outputJSON {
		data, err = json.MarshalIndent(out, "", "    ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(out)
	}
	if err != nil {
		return fmt.Errorf("printing VirtualMachine %s/%s: %w", vm.Namespace, vm.Name, err)
	}
	_, err = env.Log.Write(data)
	return err
}
