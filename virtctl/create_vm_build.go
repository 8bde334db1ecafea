package virtctl

import kubevirtv1 "kubevirt.io/api/core/v1"

// BuildVM is the VirtualMachine `virtctl create vm` prints for args (the
// flags that follow "create vm"), in namespace unless -n/--namespace among
// args names another. The create-vm-from-manifest task builds the VM of its
// virtctl parameter with it.
func BuildVM(args []string, namespace string) (*kubevirtv1.VirtualMachine, error) {
	f, err := parseVMFlags(args, namespace)
	if err != nil {
		return nil, err
	}
	return f.build(f.namespace)
}
