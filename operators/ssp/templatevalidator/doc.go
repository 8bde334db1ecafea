// Package templatevalidator is SSP's virt-template-validator: a validating
// webhook that checks VirtualMachines against the validation rules of the
// template they were created from (or their own), and refuses to delete a
// template VMs still take their rules from.
package templatevalidator

// VMValidatePath is where the validator admits VirtualMachines.
const VMValidatePath = "/virtualmachine-validate"
