// Package fidelity holds the field-coverage test: every field of
// kubevirt.io/api's VirtualMachineInstanceSpec is shown to be honoured (in
// the libvirt domain, in the launcher pod, or by a named test of the part
// that acts on it) or refused by virt-api, so no field is accepted and
// dropped in silence.
package fidelity
