// Package commontemplates generates KubeVirt's common templates: one
// OpenShift Template per guest OS, workload and flavor, each holding one
// VirtualMachine that clones its root disk from a DataSource. SSP installs
// what Templates returns into its commonTemplates namespace, and the
// console and the template validator read the labels and annotations.
//
// The set, names, labels, annotations, parameters and VirtualMachines
// reproduce the amd64 bundle of kubevirt/common-templates v0.34.1, the
// release that kubevirt.io/ssp-operator v0.26.0 ships, expanded for the
// osinfo database of that release. A further family boots virtflow's own
// test guest, in the same label scheme so that the console and the
// validator treat it like any other common template.
//
// Everything here is computed: no clients, no files. Deprecation of older
// installed templates follows SSP's rule (see Retire).
package commontemplates
