package templatevalidation

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Outcome is what became of one rule.
type Outcome string

// The outcomes of a rule.
const (
	// Satisfied: the rule applied and holds.
	Satisfied Outcome = "Satisfied"
	// Unsatisfied: the rule applied and does not hold.
	Unsatisfied Outcome = "Unsatisfied"
	// Skipped: the rule's `valid` path matches nothing on the VM.
	Skipped Outcome = "Skipped"
	// Failed: the rule is malformed or cannot be evaluated on the VM;
	// this denies even for justWarning rules.
	Failed Outcome = "Failed"
)

// Report is the outcome of one rule, for logging.
type Report struct {
	// Rule is the rule's name.
	Rule string
	// Outcome says whether the rule held, failed or was skipped.
	Outcome Outcome
	// Detail is the error (Failed) or upstream's description of the
	// values found (Satisfied, Unsatisfied); empty when Skipped.
	Detail string
}

// Evaluate applies every rule, in order, to the VM and says what to deny
// and what to warn about. It does not modify vm: upstream's defaulting of
// CPU sockets, cores and threads to 1 (when .spec.domain.cpu is present)
// is applied to a copy. No rules allow everything.
func Evaluate(vm *kubevirtv1.VirtualMachine, rules []Rule) Result {
	if len(rules) == 0 {
		return Result{}
	}
	vm = withCPUDefaults(vm)
	ref := referenceVM()
	names := make(map[string]bool, len(rules))
	verdicts := make([]verdict, 0, len(rules))
	for i := range rules {
		verdicts = append(verdicts, evaluateRule(&rules[i], names, vm, ref))
	}
	return newResult(verdicts)
}

// verdict is one rule's evaluation.
type verdict struct {
	rule    *Rule
	outcome Outcome
	detail  string
}

// evaluateRule mirrors upstream's order: a duplicate name fails before
// the rule is even checked, a malformed rule fails before `valid` is
// looked at, and only then is the rule applied.
func evaluateRule(r *Rule, names map[string]bool, vm, ref *kubevirtv1.VirtualMachine) verdict {
	if names[r.Name] {
		return failed(r, ErrDuplicateRuleName)
	}
	names[r.Name] = true
	if err := r.wellFormed(); err != nil {
		return failed(r, err)
	}
	if r.Valid != nil && !r.Valid.existsOn(vm) {
		return verdict{rule: r, outcome: Skipped}
	}
	c, err := apply(r, vm, ref)
	if err != nil {
		return failed(r, err)
	}
	if !c.satisfied {
		return verdict{rule: r, outcome: Unsatisfied, detail: c.detail}
	}
	return verdict{rule: r, outcome: Satisfied, detail: c.detail}
}

func failed(r *Rule, err error) verdict {
	return verdict{rule: r, outcome: Failed, detail: err.Error()}
}

// withCPUDefaults copies vm with the CPU topology upstream's webhook
// defaults before evaluating, so rules on cores/sockets/threads see what
// KubeVirt will run rather than zero.
func withCPUDefaults(vm *kubevirtv1.VirtualMachine) *kubevirtv1.VirtualMachine {
	vm = vm.DeepCopy()
	if vm == nil || vm.Spec.Template == nil || vm.Spec.Template.Spec.Domain.CPU == nil {
		return vm
	}
	cpu := vm.Spec.Template.Spec.Domain.CPU
	if cpu.Sockets == 0 {
		cpu.Sockets = 1
	}
	if cpu.Cores == 0 {
		cpu.Cores = 1
	}
	if cpu.Threads == 0 {
		cpu.Threads = 1
	}
	return vm
}
