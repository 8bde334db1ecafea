package templatevalidation

import (
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Result is the evaluation of a rule set against a VM.
type Result struct {
	// Causes are what upstream denies with, in rule order: empty when
	// the VM is admitted. Each is FieldValueInvalid on the rule's path
	// expression, with message "<rule message>: <detail>". Once anything
	// denies, every unsatisfied or failed rule is a cause, justWarning
	// rules included, as upstream does.
	Causes []metav1.StatusCause
	// Warnings are the unsatisfied justWarning rules, worded as causes.
	// Upstream only logs these; admission warnings are our addition.
	Warnings []string
	// Reports hold every rule's outcome, in rule order.
	Reports []Report
}

// Denied reports whether the VM must be rejected.
func (r Result) Denied() bool { return len(r.Causes) > 0 }

// Message is upstream's denial message: the causes' messages joined by
// ", "; empty when admitted.
func (r Result) Message() string {
	msgs := make([]string, 0, len(r.Causes))
	for _, c := range r.Causes {
		msgs = append(msgs, c.Message)
	}
	return strings.Join(msgs, ", ")
}

// Status is the status upstream's webhook denies with: 422 Invalid,
// Message, and the causes as details; nil when admitted.
func (r Result) Status() *metav1.Status {
	if !r.Denied() {
		return nil
	}
	return &metav1.Status{
		Message: r.Message(),
		Reason:  metav1.StatusReasonInvalid,
		Code:    http.StatusUnprocessableEntity,
		Details: &metav1.StatusDetails{Causes: r.Causes},
	}
}

func newResult(verdicts []verdict) Result {
	var res Result
	denied := false
	for _, v := range verdicts {
		res.Reports = append(res.Reports, Report{Rule: v.rule.Name, Outcome: v.outcome, Detail: v.detail})
		switch {
		case v.outcome == Failed:
			denied = true
		case v.outcome == Unsatisfied && v.rule.JustWarning:
			res.Warnings = append(res.Warnings, causeMessage(v))
		case v.outcome == Unsatisfied:
			denied = true
		}
	}
	if denied {
		res.Causes = causes(verdicts)
	}
	return res
}

func causes(verdicts []verdict) []metav1.StatusCause {
	var out []metav1.StatusCause
	for _, v := range verdicts {
		if v.outcome != Failed && v.outcome != Unsatisfied {
			continue
		}
		out = append(out, metav1.StatusCause{
			Type:    metav1.CauseTypeFieldValueInvalid,
			Field:   v.rule.Path.Expr(),
			Message: causeMessage(v),
		})
	}
	return out
}

func causeMessage(v verdict) string {
	return v.rule.Message + ": " + v.detail
}
