package virtadmission

import (
	"fmt"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// cloner is a pointer to a type with a generated DeepCopy.
type cloner[T any] interface {
	*T
	DeepCopy() *T
}

// mergePart fills an unset VMI part with a copy of the preset's and
// reports whether the VMI's part now is the preset's: a part the VMI sets
// otherwise is kept and does not count as applied.
func mergePart[T any, P cloner[T]](preset P, vmi *P) bool {
	if preset == nil {
		return false
	}
	if *vmi == nil {
		*vmi = preset.DeepCopy()
	}
	return semanticEqual(*vmi, preset)
}

// mergeDomain merges the parts of a preset's domain upstream merges
// (resource requests, CPU, firmware, clock, features, watchdog and I/O
// threads policy). It reports whether any part took, and the parts the
// VMI sets differently.
func mergeDomain(p, v *kubevirtv1.DomainSpec) (bool, error) {
	conflicts := domainConflicts(p, v)
	applied := mergeRequests(p, v)
	applied = mergePart(p.CPU, &v.CPU) || applied
	applied = mergePart(p.Firmware, &v.Firmware) || applied
	applied = mergeClock(p, v) || applied
	applied = mergePart(p.Features, &v.Features) || applied
	applied = mergePart(p.Devices.Watchdog, &v.Devices.Watchdog) || applied
	applied = mergeIOThreadsPolicy(p, v) || applied
	return applied, conflicts
}

// mergeRequests copies the preset's requests only into a VMI without
// any, and counts as applied only when the VMI's end up the same: a VMI
// asking for anything itself keeps all of its own.
func mergeRequests(p, v *kubevirtv1.DomainSpec) bool {
	if len(p.Resources.Requests) == 0 {
		return false
	}
	if v.Resources.Requests == nil {
		v.Resources.Requests = p.Resources.Requests.DeepCopy()
	}
	return semanticEqual(v.Resources.Requests, p.Resources.Requests)
}

// mergeClock gives a VMI without a clock the preset's offset, then its
// timer when the VMI has none.
func mergeClock(p, v *kubevirtv1.DomainSpec) bool {
	if p.Clock == nil {
		return false
	}
	if v.Clock == nil {
		v.Clock = &kubevirtv1.Clock{}
		p.Clock.ClockOffset.DeepCopyInto(&v.Clock.ClockOffset)
	}
	applied := semanticEqual(v.Clock, p.Clock)
	return mergePart(p.Clock.Timer, &v.Clock.Timer) || applied
}

func mergeIOThreadsPolicy(p, v *kubevirtv1.DomainSpec) bool {
	if p.IOThreadsPolicy == nil {
		return false
	}
	if v.IOThreadsPolicy == nil {
		policy := *p.IOThreadsPolicy
		v.IOThreadsPolicy = &policy
	}
	return semanticEqual(v.IOThreadsPolicy, p.IOThreadsPolicy)
}

// domainConflicts lists the parts both domains set, differently, in
// upstream's words; nil when there are none.
func domainConflicts(p, v *kubevirtv1.DomainSpec) error {
	errs := requestConflicts(p, v)
	errs = appendConflict(errs, "spec.cpu", p.CPU, v.CPU)
	errs = appendConflict(errs, "spec.firmware", p.Firmware, v.Firmware)
	errs = append(errs, clockConflicts(p.Clock, v.Clock)...)
	errs = appendConflict(errs, "spec.features", p.Features, v.Features)
	errs = appendConflict(errs, "spec.devices.watchdog", p.Devices.Watchdog, v.Devices.Watchdog)
	errs = appendConflict(errs, "spec.ioThreadsPolicy", p.IOThreadsPolicy, v.IOThreadsPolicy)
	return utilerrors.NewAggregate(errs)
}

// appendConflict adds a conflict when both set the part differently.
func appendConflict[T any](errs []error, path string, p, v *T) []error {
	if p == nil || v == nil || semanticEqual(p, v) {
		return errs
	}
	return append(errs, fmt.Errorf("%s: %v != %v", path, p, v))
}

// requestConflicts compares quantities as structs, as upstream does, so
// the same amount written two ways ("1Gi", "1024Mi") conflicts too.
func requestConflicts(p, v *kubevirtv1.DomainSpec) []error {
	var errs []error
	for name, want := range p.Resources.Requests {
		if got, ok := v.Resources.Requests[name]; ok && want != got {
			errs = append(errs, fmt.Errorf("spec.resources.requests[%s]: %v != %v", name, want, got))
		}
	}
	return errs
}

func clockConflicts(p, v *kubevirtv1.Clock) []error {
	if p == nil || v == nil {
		return nil
	}
	var errs []error
	if !semanticEqual(p.ClockOffset, v.ClockOffset) {
		errs = append(errs, fmt.Errorf("spec.clock.clockoffset: %v != %v", p.ClockOffset, v.ClockOffset))
	}
	return appendConflict(errs, "spec.clock.timer", p.Timer, v.Timer)
}
