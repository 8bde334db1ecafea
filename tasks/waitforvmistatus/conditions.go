package waitforvmistatus

import (
	"bytes"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/jsonpath"
)

// condition is a label selector whose keys are JSON paths into the VMI
// ("status.phase in (Failed, Unknown)"): each key's value in the VMI
// stands for a label of that name, and the VMI fulfils the condition when
// those labels match every requirement. A key whose path the VMI lacks is
// an absent label.
type condition struct {
	text         string
	requirements labels.Requirements
}

// parseCondition parses text; an empty text is a condition nothing
// fulfils (it is not checked).
func parseCondition(text string) (condition, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return condition{}, nil
	}
	selector, err := labels.Parse(text)
	if err != nil {
		return condition{}, fmt.Errorf("could not parse condition %v: %v", text, err)
	}
	reqs, selectable := selector.Requirements()
	if !selectable {
		return condition{}, nil
	}
	for _, req := range reqs {
		if _, err := compilePath(req.Key()); err != nil {
			return condition{}, fmt.Errorf("invalid condition: %v", err)
		}
	}
	return condition{text: text, requirements: reqs}, nil
}

// empty is true for a condition there is nothing to check of.
func (c condition) empty() bool { return len(c.requirements) == 0 }

// compilePath is the JSON path of key: "status.phase" is {.status.phase},
// a key already in braces is taken as it is.
func compilePath(key string) (*jsonpath.JSONPath, error) {
	path := key
	if !strings.HasPrefix(path, "{") {
		path = "{." + path + "}"
	}
	jp := jsonpath.New("requirements")
	if err := jp.Parse(path); err != nil {
		return nil, fmt.Errorf("cannot parse jsonpath %v: %v", path, err)
	}
	return jp, nil
}

// fulfilledBy is true when obj meets every requirement; obj is evaluated
// as the typed object (a field the struct has is present even when
// zero).
func (c condition) fulfilledBy(obj any) bool {
	if c.empty() {
		return false
	}
	set := labels.Set{}
	for _, req := range c.requirements {
		jp, err := compilePath(req.Key())
		if err != nil {
			return false // parseCondition compiled every key already
		}
		var buf bytes.Buffer
		if err := jp.Execute(&buf, obj); err == nil {
			set[req.Key()] = buf.String()
		}
	}
	for _, req := range c.requirements {
		if !req.Matches(set) {
			return false
		}
	}
	return true
}
