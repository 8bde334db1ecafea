// Package hco holds the side effects of installing a HyperConverged: building
// each component CR from the HyperConverged spec, applying it, and waiting
// for the component operator to report it Available.
package hco

// Activity type names. They are constants so that renaming a Go method never
// changes what recorded workflow histories refer to.
const (
	PlanComponentsName         = "hco.PlanComponents"
	EnsureComponentName        = "hco.EnsureComponent"
	WaitComponentAvailableName = "hco.WaitComponentAvailable"
	DeleteComponentsName       = "hco.DeleteComponents"
)

// Component kinds the HyperConverged owns.
const (
	KindKubeVirt            = "KubeVirt"
	KindCDI                 = "CDI"
	KindNetworkAddonsConfig = "NetworkAddonsConfig"
	KindSSP                 = "SSP"
	KindHostPathProvisioner = "HostPathProvisioner"
)

// HyperConvergedRef identifies the HyperConverged being installed.
type HyperConvergedRef struct {
	Namespace string
	Name      string
	UID       string
}

// ComponentRef identifies one component CR.
type ComponentRef struct {
	Kind       string
	APIVersion string
	Namespace  string
	Name       string
}

// EnsureComponentInput asks for one component CR to match its desired state.
type EnsureComponentInput struct {
	HyperConverged HyperConvergedRef
	Component      ComponentRef
}

// ComponentStatus is what a component operator reported on its CR.
type ComponentStatus struct {
	Component ComponentRef
	Available bool
	Reason    string
	Message   string
	// Version is the component's observed version when it reports one.
	Version string
}

// ErrHyperConvergedGone is the non-retryable error type raised when the
// HyperConverged disappeared or was replaced while being installed.
const ErrHyperConvergedGone = "HyperConvergedGone"
