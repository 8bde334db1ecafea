package hyperconverged

import (
	"fmt"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// Warnings for feature gates that no longer do anything, or that moved.
const (
	fgIgnoredWarning = "spec.featureGates.%s is deprecated and ignored. It will be removed in a future version;"
	fgMovedWarning   = "spec.featureGates.%[1]s is deprecated and ignored. It will removed in a future version; use spec.%[1]s instead"

	mdevGateWarning      = "spec.featureGates.disableMDevConfiguration is deprecated. Use spec.virtualization.mediatedDevicesConfiguration.enabled in the v1 API instead; it will be removed in a future version."
	reservationWarning   = "spec.featureGates.persistentReservation is deprecated. Use spec.storage.persistentReservationConfiguration.enabled in the v1 API instead; it will be removed in a future version."
	multiArchGateWarning = "spec.featureGates.enableMultiArchBootImageImport is deprecated. Use spec.workloadSources.enableMultiArchBootImageImport in the v1 API instead; it will be removed in a future version."
)

// deprecatedGateWarnings warn about every deprecated gate that is set.
//
//nolint:staticcheck // reading the deprecated gates is the point
func deprecatedGateWarnings(fg hcov1beta1.HyperConvergedFeatureGates) []string {
	var w []string
	for _, g := range []struct {
		set  bool
		name string
	}{
		{fg.WithHostPassthroughCPU != nil, "withHostPassthroughCPU"},
		{fg.DeployTektonTaskResources != nil, "deployTektonTaskResources"},
		{fg.NonRoot != nil, "nonRoot"},
		{fg.EnableManagedTenantQuota != nil, "enableManagedTenantQuota"},
	} {
		if g.set {
			w = append(w, fmt.Sprintf(fgIgnoredWarning, g.name))
		}
	}
	for _, g := range []struct {
		set     bool
		warning string
	}{
		{fg.DisableMDevConfiguration != nil, mdevGateWarning},
		{fg.PersistentReservation != nil, reservationWarning},
		{fg.EnableMultiArchBootImageImport != nil, multiArchGateWarning},
	} {
		if g.set {
			w = append(w, g.warning)
		}
	}
	return w
}

// movedGate is a gate that became a spec field of the same name.
type movedGate struct {
	name string
	get  func(hcov1beta1.HyperConvergedFeatureGates) *bool
}

//nolint:staticcheck // the moved gates are deprecated fields
var movedGates = []movedGate{
	{"enableApplicationAwareQuota", func(fg hcov1beta1.HyperConvergedFeatureGates) *bool { return fg.EnableApplicationAwareQuota }},
	{"enableCommonBootImageImport", func(fg hcov1beta1.HyperConvergedFeatureGates) *bool { return fg.EnableCommonBootImageImport }},
	{"deployVmConsoleProxy", func(fg hcov1beta1.HyperConvergedFeatureGates) *bool { return fg.DeployVMConsoleProxy }},
}

// featureGateWarningsOnCreate warns about every deprecated or moved gate set.
func featureGateWarningsOnCreate(hc *hcov1beta1.HyperConverged) []string {
	w := deprecatedGateWarnings(hc.Spec.FeatureGates)
	for _, g := range movedGates {
		if g.get(hc.Spec.FeatureGates) != nil {
			w = append(w, fmt.Sprintf(fgMovedWarning, g.name))
		}
	}
	return w
}

// featureGateWarningsOnUpdate warns about moved gates only when this update
// sets or changes them, so an old object does not warn on every write.
func featureGateWarningsOnUpdate(hc, old *hcov1beta1.HyperConverged) []string {
	w := deprecatedGateWarnings(hc.Spec.FeatureGates)
	for _, g := range movedGates {
		cur, prev := g.get(hc.Spec.FeatureGates), g.get(old.Spec.FeatureGates)
		if cur != nil && (prev == nil || *cur != *prev) {
			w = append(w, fmt.Sprintf(fgMovedWarning, g.name))
		}
	}
	return w
}
