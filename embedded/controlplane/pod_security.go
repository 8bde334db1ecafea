package controlplane

import (
	"fmt"
	"os"
	"strings"
)

// PlatformNamespaces hold the platform's own privileged workloads (the
// registry and DNS in kube-system; virt-handler and the CSI node plugin in
// the install namespace), so Pod Security does not apply to them.
var PlatformNamespaces = []string{"kube-system", "kubevirt-hyperconverged"}

// LauncherCreator is the identity that creates virt-launcher pods in users'
// namespaces. A launcher mounts the node's shared capability cache (a host
// directory), which the baseline level forbids to everyone else; exempting
// the creator, not the namespace, is what a privileged SCC granted to
// kubevirt-controller does on OpenShift.
const LauncherCreator = "system:serviceaccount:kubevirt-hyperconverged:kubevirt-controller"

// MigrationTargetCreator creates a live migration's target launcher pod,
// a copy of the source's, in the migration workflow's step. It already
// acts as any service account for the durable tasks, so the exemption
// adds nothing it could not reach.
const MigrationTargetCreator = "system:serviceaccount:kubevirt-hyperconverged:virtflow-worker"

// podSecurityConfig makes `baseline` the enforced level of every namespace
// that does not choose its own: without it a namespace editor may run a
// privileged or host-network pod, or mount any host path, and so own the
// node whatever RBAC says. Warnings and audit ask for `restricted`.
func podSecurityConfig() string {
	return fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: baseline
      enforce-version: latest
      warn: restricted
      warn-version: latest
      audit: restricted
      audit-version: latest
    exemptions:
      usernames: [%q, %q]
      runtimeClasses: []
      namespaces: [%s]
`, LauncherCreator, MigrationTargetCreator, quoted(PlatformNamespaces))
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// writeAdmissionConfig writes the API server's admission configuration.
func (cp *ControlPlane) writeAdmissionConfig() error {
	if err := os.WriteFile(cp.path("admission.yaml"), []byte(podSecurityConfig()), 0o600); err != nil {
		return fmt.Errorf("writing the admission configuration: %w", err)
	}
	return nil
}
