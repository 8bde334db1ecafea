package domain

import (
	"errors"
	"fmt"
	"strconv"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// featuresOf maps spec.domain.features as upstream's converter does: ACPI
// unless disabled, and each other feature only when the spec names it. A
// state left unset means on, except KVM's hidden flag.
func featuresOf(spec *kubevirtv1.DomainSpec) *libvirtxml.DomainFeatureList {
	list := &libvirtxml.DomainFeatureList{ACPI: &libvirtxml.DomainFeature{}}
	f := spec.Features
	if f == nil {
		return list
	}
	if f.ACPI.Enabled != nil && !*f.ACPI.Enabled {
		list.ACPI = nil
	}
	if on(f.SMM) {
		list.SMM = &libvirtxml.DomainFeatureSMM{State: "on"}
	}
	if f.APIC != nil && on(&f.APIC.FeatureState) {
		list.APIC = &libvirtxml.DomainFeatureAPIC{}
		// Upstream drops endOfInterrupt; libvirt has it, so it is honoured.
		if f.APIC.EndOfInterrupt {
			list.APIC.EOI = "on"
		}
	}
	switch {
	case f.Hyperv != nil:
		list.HyperV = hypervOf(f.Hyperv)
	case f.HypervPassthrough != nil && f.HypervPassthrough.Enabled != nil && *f.HypervPassthrough.Enabled:
		list.HyperV = &libvirtxml.DomainFeatureHyperV{Mode: "passthrough"}
	}
	if f.KVM != nil {
		list.KVM = &libvirtxml.DomainFeatureKVM{Hidden: &libvirtxml.DomainFeatureState{State: onOff(&f.KVM.Hidden, false)}}
	}
	if f.Pvspinlock != nil {
		list.PVSpinlock = &libvirtxml.DomainFeatureState{State: onOff(f.Pvspinlock.Enabled, true)}
	}
	return list
}

// on tells whether a named feature is enabled: named, and not turned off.
func on(s *kubevirtv1.FeatureState) bool {
	return s != nil && (s.Enabled == nil || *s.Enabled)
}

// onOff renders an optional switch, def standing in for an unset one.
func onOff(v *bool, def bool) string {
	if v == nil {
		v = &def
	}
	if *v {
		return "on"
	}
	return "off"
}

func stateOf(s *kubevirtv1.FeatureState) *libvirtxml.DomainFeatureState {
	if s == nil {
		return nil
	}
	return &libvirtxml.DomainFeatureState{State: onOff(s.Enabled, true)}
}

// hypervOf lists every enlightenment the spec names, in libvirt's terms.
func hypervOf(h *kubevirtv1.FeatureHyperv) *libvirtxml.DomainFeatureHyperV {
	out := &libvirtxml.DomainFeatureHyperV{
		Relaxed: stateOf(h.Relaxed), VAPIC: stateOf(h.VAPIC), VPIndex: stateOf(h.VPIndex),
		Runtime: stateOf(h.Runtime), Synic: stateOf(h.SyNIC), Reset: stateOf(h.Reset),
		Frequencies: stateOf(h.Frequencies), ReEnlightenment: stateOf(h.Reenlightenment),
		IPI: stateOf(h.IPI), EVMCS: stateOf(h.EVMCS),
	}
	if s := h.Spinlocks; s != nil {
		// libvirt wants the retries of enabled spinlocks; upstream's
		// default is 4096.
		out.Spinlocks = &libvirtxml.DomainFeatureHyperVSpinlocks{DomainFeatureState: libvirtxml.DomainFeatureState{State: onOff(s.Enabled, true)}}
		if out.Spinlocks.State == "on" {
			out.Spinlocks.Retries = 4096
			if s.Retries != nil {
				out.Spinlocks.Retries = uint(*s.Retries)
			}
		}
	}
	if v := h.VendorID; v != nil {
		out.VendorId = &libvirtxml.DomainFeatureHyperVVendorId{DomainFeatureState: libvirtxml.DomainFeatureState{State: onOff(v.Enabled, true)}, Value: v.VendorID}
	}
	if t := h.SyNICTimer; t != nil {
		out.STimer = &libvirtxml.DomainFeatureHyperVSTimer{DomainFeatureState: libvirtxml.DomainFeatureState{State: onOff(t.Enabled, true)}, Direct: stateOf(t.Direct)}
	}
	if t := h.TLBFlush; t != nil {
		out.TLBFlush = &libvirtxml.DomainFeatureHyperVTLBFlush{DomainFeatureState: libvirtxml.DomainFeatureState{State: onOff(t.Enabled, true)}}
	}
	return out
}

// unsupportedByLibvirt names what the launcher's libvirt (9.0) would
// ignore without a word: refusing is honest, dropping is not.
func unsupportedByLibvirt(spec *kubevirtv1.DomainSpec) error {
	if f := spec.Features; f != nil && f.Hyperv != nil && f.Hyperv.VendorID != nil && onOff(f.Hyperv.VendorID.Enabled, true) == "on" && f.Hyperv.VendorID.VendorID == "" {
		return errors.New("spec.domain.features.hyperv.vendorid: an enabled vendor ID needs its value")
	}
	if f := spec.Features; f != nil && f.Hyperv != nil && f.Hyperv.TLBFlush != nil && (f.Hyperv.TLBFlush.Direct != nil || f.Hyperv.TLBFlush.Extended != nil) {
		return errors.New("spec.domain.features.hyperv.tlbflush: the launcher's libvirt 9.0 has no direct or extended TLB flush")
	}
	for i, d := range spec.Devices.Disks {
		if d.BlockSize != nil && d.BlockSize.Custom != nil && d.BlockSize.Custom.DiscardGranularity != nil {
			return fmt.Errorf("spec.domain.devices.disks[%d].blockSize.custom.discardGranularity: the launcher's libvirt 9.0 cannot set a discard granularity", i)
		}
	}
	return nil
}

// clockOf maps spec.domain.clock: a UTC offset (reset to the host's time
// at each start unless an offset is given) or a time zone, and the timers.
func clockOf(c *kubevirtv1.Clock) *libvirtxml.DomainClock {
	if c == nil {
		return nil
	}
	// UTC unless a time zone is named, as upstream's defaults have it.
	out := &libvirtxml.DomainClock{Offset: "utc", Adjustment: "reset"}
	switch {
	case c.UTC != nil && c.UTC.OffsetSeconds != nil:
		out.Adjustment = strconv.Itoa(*c.UTC.OffsetSeconds)
	case c.UTC == nil && c.Timezone != nil:
		out.Offset, out.Adjustment, out.TimeZone = "timezone", "", string(*c.Timezone)
	}
	if t := c.Timer; t != nil {
		if t.RTC != nil {
			out.Timer = append(out.Timer, libvirtxml.DomainTimer{Name: "rtc", Track: string(t.RTC.Track), TickPolicy: string(t.RTC.TickPolicy), Present: yesNo(t.RTC.Enabled)})
		}
		if t.PIT != nil {
			out.Timer = append(out.Timer, libvirtxml.DomainTimer{Name: "pit", TickPolicy: string(t.PIT.TickPolicy), Present: yesNo(t.PIT.Enabled)})
		}
		if t.KVM != nil {
			out.Timer = append(out.Timer, libvirtxml.DomainTimer{Name: "kvmclock", Present: yesNo(t.KVM.Enabled)})
		}
		if t.HPET != nil {
			out.Timer = append(out.Timer, libvirtxml.DomainTimer{Name: "hpet", TickPolicy: string(t.HPET.TickPolicy), Present: yesNo(t.HPET.Enabled)})
		}
		if t.Hyperv != nil {
			out.Timer = append(out.Timer, libvirtxml.DomainTimer{Name: "hypervclock", Present: yesNo(t.Hyperv.Enabled)})
		}
	}
	return out
}

// yesNo renders a timer's presence, present unless turned off.
func yesNo(v *bool) string {
	if v == nil || *v {
		return "yes"
	}
	return "no"
}
