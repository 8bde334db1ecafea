// Package migrationpolicy chooses the MigrationPolicy that applies to a
// VMI and the migration configuration in effect, as upstream's
// virt-controller records them in migrationState.migrationPolicyName and
// migrationConfiguration.
package migrationpolicy

import (
	"sort"

	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
)

// match scores how well a policy's selectors match: -1 when they do not.
type match struct {
	policy       *migrationsv1alpha1.MigrationPolicy
	vmi, matched int
}

// Select returns the policy that applies to a VMI with vmiLabels in a
// namespace with nsLabels, nil when none does: every label a policy
// selects on must be there; the policy matching the most labels wins,
// then the one matching more of the VMI's, then the first by name. A
// policy without selectors matches nothing. Unlike upstream, a VMI without
// labels does not match policies that select on VMI labels.
func Select(policies []migrationsv1alpha1.MigrationPolicy, vmiLabels, nsLabels map[string]string) *migrationsv1alpha1.MigrationPolicy {
	var found []match
	for i := range policies {
		s := policies[i].Spec.Selectors
		if s == nil {
			continue
		}
		vmi, ok := matches(s.VirtualMachineInstanceSelector, vmiLabels)
		ns, nsOK := matches(s.NamespaceSelector, nsLabels)
		if ok && nsOK {
			found = append(found, match{policy: &policies[i], vmi: vmi, matched: vmi + ns})
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.matched != b.matched {
			return a.matched > b.matched
		}
		if a.vmi != b.vmi {
			return a.vmi > b.vmi
		}
		return a.policy.Name < b.policy.Name
	})
	return found[0].policy
}

// matches counts the selector's labels, all of which must be in labels.
func matches(selector migrationsv1alpha1.LabelSelector, labels map[string]string) (int, bool) {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return 0, false
		}
	}
	return len(selector), true
}

// Effective overlays the policy's settings on the cluster's migration
// configuration. policyName is the policy's when it changed anything. A
// policy that allows post-copy without saying whether the workload may
// be disrupted allows that too, as upstream.
func Effective(cluster kubevirtv1.MigrationConfiguration, p *migrationsv1alpha1.MigrationPolicy) (cfg kubevirtv1.MigrationConfiguration, policyName string) {
	cfg = *cluster.DeepCopy()
	if cfg.AllowWorkloadDisruption == nil {
		cfg.AllowWorkloadDisruption = copyBool(cfg.AllowPostCopy)
	}
	if p == nil {
		return cfg, ""
	}
	s := p.Spec.DeepCopy()
	changed := false
	set := func(dst **bool, src *bool) {
		if src != nil {
			*dst, changed = src, true
		}
	}
	set(&cfg.AllowAutoConverge, s.AllowAutoConverge)
	set(&cfg.AllowPostCopy, s.AllowPostCopy)
	set(&cfg.AllowWorkloadDisruption, s.AllowWorkloadDisruption)
	if s.AllowPostCopy != nil && s.AllowWorkloadDisruption == nil {
		cfg.AllowWorkloadDisruption = copyBool(s.AllowPostCopy)
	}
	if s.BandwidthPerMigration != nil {
		cfg.BandwidthPerMigration, changed = s.BandwidthPerMigration, true
	}
	if s.CompletionTimeoutPerGiB != nil {
		cfg.CompletionTimeoutPerGiB, changed = s.CompletionTimeoutPerGiB, true
	}
	if s.MaxDowntimeMs != nil {
		cfg.MaxDowntimeMs, changed = s.MaxDowntimeMs, true
	}
	if !changed {
		return cfg, ""
	}
	return cfg, p.Name
}

func copyBool(b *bool) *bool {
	if b == nil {
		v := false
		return &v
	}
	v := *b
	return &v
}
