// Package hco is the contract between the HyperConverged operator, the HCO
// workflows and the activities they run: workflow and activity type names,
// their inputs, results and progress, and the error types a retry cannot
// fix. It has no side effects, so workflows and operators can import it
// without pulling in what the activities use.
package hco

import "github.com/virtflow/virtflow/contracts/typed"

// Workflow type names. They are constants so that renaming a Go function
// never changes what recorded histories and running executions refer to.
const (
	// InstallWorkflowName creates a HyperConverged's component CRs and
	// waits for each to become Available.
	InstallWorkflowName = "hco.InstallHyperConverged"
	// UninstallWorkflowName deletes a HyperConverged's component CRs and
	// waits until they are gone.
	UninstallWorkflowName = "hco.UninstallHyperConverged"
)

// The HCO workflows, typed, so that registering a function of another
// signature under their names does not compile.
var (
	InstallWorkflow   = typed.Workflow[InstallInput, InstallResult]{Name: InstallWorkflowName}
	UninstallWorkflow = typed.VoidWorkflow[UninstallInput]{Name: UninstallWorkflowName}
)

// Activity type names, registered on the control task queue.
const (
	PlanComponentsName         = "hco.PlanComponents"
	EnsureComponentName        = "hco.EnsureComponent"
	WaitComponentAvailableName = "hco.WaitComponentAvailable"
	DeleteComponentsName       = "hco.DeleteComponents"
	WaitComponentsGoneName     = "hco.WaitComponentsGone"
)

// The HCO activities, typed; see Activities for what each does.
var (
	PlanComponents         = typed.Activity[HyperConvergedRef, []ComponentRef]{Name: PlanComponentsName}
	EnsureComponent        = typed.VoidActivity[EnsureComponentInput]{Name: EnsureComponentName}
	WaitComponentAvailable = typed.Activity[ComponentRef, ComponentStatus]{Name: WaitComponentAvailableName}
	DeleteComponents       = typed.VoidActivity[[]ComponentRef]{Name: DeleteComponentsName}
	WaitComponentsGone     = typed.VoidActivity[[]ComponentRef]{Name: WaitComponentsGoneName}
)

// InstallWorkflowID is the install workflow's ID for a HyperConverged UID.
func InstallWorkflowID(uid string) string { return "hco-install-" + uid }

// UninstallWorkflowID is the uninstall workflow's ID for a HyperConverged
// UID.
func UninstallWorkflowID(uid string) string { return "hco-uninstall-" + uid }

// ProgressQuery returns the current InstallProgress.
const ProgressQuery = "progress"

// ProgressMemoKey is the memo field the reconciler reads progress from.
const ProgressMemoKey = "progress"

// Steps of the install and the uninstall, published in their progress.
const (
	StepPlanning  = "Planning"
	StepCreating  = "CreatingComponents"
	StepWaiting   = "WaitingForComponents"
	StepCompleted = "Completed"
	StepCleanup   = "CleaningUp"
	StepDeleting  = "DeletingComponents"
	StepRemoving  = "WaitingForRemoval"
)

// Component kinds the HyperConverged owns.
const (
	KindKubeVirt            = "KubeVirt"
	KindCDI                 = "CDI"
	KindNetworkAddonsConfig = "NetworkAddonsConfig"
	KindSSP                 = "SSP"
	KindHostPathProvisioner = "HostPathProvisioner"
)

// ErrHyperConvergedGone is the non-retryable error type raised when the
// HyperConverged disappeared or was replaced while being installed.
const ErrHyperConvergedGone = "HyperConvergedGone"
