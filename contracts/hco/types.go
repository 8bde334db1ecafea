package hco

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

// InstallInput names the HyperConverged to install.
type InstallInput struct {
	HyperConverged HyperConvergedRef
}

// InstallResult lists the components installed and their versions.
type InstallResult struct {
	Components []ComponentStatus
}

// UninstallInput names the component CRs to remove: the HyperConverged is
// being deleted, so they are computed before the workflow starts rather
// than read from it.
type UninstallInput struct {
	HyperConverged HyperConvergedRef `json:"hyperConverged"`
	Components     []ComponentRef    `json:"components"`
}

// ComponentProgress is one component's state in the install.
type ComponentProgress struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Created   bool   `json:"created"`
	Available bool   `json:"available"`
	Message   string `json:"message,omitempty"`
}

// InstallProgress is published as memo and answered to ProgressQuery.
type InstallProgress struct {
	Step       string              `json:"step"`
	Components []ComponentProgress `json:"components"`
}

// Done counts the components that are Available.
func (p InstallProgress) Done() int {
	n := 0
	for _, c := range p.Components {
		if c.Available {
			n++
		}
	}
	return n
}

// UninstallProgress is the uninstall's memo: its step and the components
// still present.
type UninstallProgress struct {
	Step      string         `json:"step"`
	Remaining []ComponentRef `json:"remaining,omitempty"`
}
