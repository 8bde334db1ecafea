// Package templatevalidation is the rule engine of the VirtualMachine
// template validator: it parses the validation rules that common templates
// attach to VMs (the `vm.kubevirt.io/validations` annotation of a VM, or the
// `validations` annotation of its template) and evaluates them against a VM.
//
// It reproduces the behaviour of SSP's template-validator webhook
// (kubevirt/ssp-operator internal/template-validator, v0.26.0): the same
// rule grammar, the same jsonpath semantics (rooted at .spec.template of
// the VM, with a zero-valued reference VM standing in for optional fields
// that are absent), the same causes and messages. It has no side effects;
// the admission webhook decides which annotation to read and turns a
// Result into an AdmissionResponse (see Result.Status).
package templatevalidation
