package customrun

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// GVK is Tekton's CustomRun kind, the one the pipeline controller creates
// for a PipelineTask whose taskRef is not a Task.
var GVK = schema.GroupVersionKind{Group: "tekton.dev", Version: "v1beta1", Kind: "CustomRun"}

// Tekton's values this controller speaks (CustomRunSpecStatusCancelled and
// the CustomRunReason constants of tekton.dev/v1beta1).
const (
	specStatusCancelled = "RunCancelled"
	conditionSucceeded  = "Succeeded"
	ReasonStarted       = "Started"
	ReasonRunning       = "Running"
	ReasonSucceeded     = "Succeeded"
	ReasonFailed        = "Failed"
	ReasonCancelled     = "CustomRunCancelled"
	ReasonTimedOut      = "CustomRunTimedOut"
)

// defaultTimeout is Tekton's for a CustomRun that names none; a zero
// timeout means none.
const defaultTimeout = 60 * time.Minute

// run is the part of a CustomRun this controller reads and writes.
type run struct {
	Spec   runSpec   `json:"spec"`
	Status runStatus `json:"status"`
}

type runSpec struct {
	CustomRef          *ref             `json:"customRef,omitempty"`
	CustomSpec         *ref             `json:"customSpec,omitempty"`
	Params             []param          `json:"params,omitempty"`
	Status             string           `json:"status,omitempty"`
	StatusMessage      string           `json:"statusMessage,omitempty"`
	ServiceAccountName string           `json:"serviceAccountName,omitempty"`
	Timeout            *metav1.Duration `json:"timeout,omitempty"`
}

// ref is a customRef, or the type of an embedded customSpec.
type ref struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
}

// param is one of a CustomRun's params; Value is a string, an array of
// strings or an object.
type param struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// runStatus is a CustomRun's status as Tekton's CustomRunStatus lays it
// out (duckv1.Status plus CustomRunStatusFields).
type runStatus struct {
	ObservedGeneration int64        `json:"observedGeneration,omitempty"`
	Conditions         []condition  `json:"conditions,omitempty"`
	StartTime          *metav1.Time `json:"startTime,omitempty"`
	CompletionTime     *metav1.Time `json:"completionTime,omitempty"`
	Results            []result     `json:"results,omitempty"`
}

// condition is a knative condition.
type condition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
}

type result struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// newObject is an empty CustomRun to read into.
func newObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(GVK)
	return u
}

func decode(u *unstructured.Unstructured) (run, error) {
	var r run
	data, err := json.Marshal(u.Object)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		return run{}, fmt.Errorf("reading CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return r, nil
}

// ours tells whether the CustomRun refers to a durable task or pipeline.
func (r run) ours() bool {
	t := r.Spec.CustomRef
	if t == nil {
		t = r.Spec.CustomSpec
	}
	return t != nil && t.APIVersion == ssp.APIVersion && (t.Kind == ssp.KindDurableTask || t.Kind == ssp.KindDurablePipeline)
}

// done tells whether the CustomRun has finished, for good.
func (r run) done() bool { return r.Status.CompletionTime != nil }

func (r run) cancelRequested() bool { return r.Spec.Status == specStatusCancelled }

func (r run) timeout() time.Duration {
	if r.Spec.Timeout == nil {
		return defaultTimeout
	}
	return r.Spec.Timeout.Duration
}

// deadline is when the run times out; zero when it never does or has not
// started.
func (r run) deadline() time.Time {
	if r.Status.StartTime == nil || r.timeout() <= 0 {
		return time.Time{}
	}
	return r.Status.StartTime.Add(r.timeout())
}

func (r run) timedOut(now time.Time) bool {
	d := r.deadline()
	return !d.IsZero() && now.After(d)
}

// serviceAccount is whom the run acts as: the CustomRun's service account,
// as a TaskRun's pod runs as its own.
func (r run) serviceAccount() string {
	if r.Spec.ServiceAccountName != "" {
		return r.Spec.ServiceAccountName
	}
	return ssp.DefaultServiceAccount
}

// params are the run's params as strings and arrays.
func (r run) params() (ssp.Params, error) {
	p := ssp.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	for _, pm := range r.Spec.Params {
		var s string
		if err := json.Unmarshal(pm.Value, &s); err == nil {
			p.Strings[pm.Name] = s
			continue
		}
		var a []string
		if err := json.Unmarshal(pm.Value, &a); err == nil {
			p.Arrays[pm.Name] = a
			continue
		}
		return ssp.Params{}, fmt.Errorf("param %s: only string and array params can be passed to a durable task", pm.Name)
	}
	return p, nil
}
