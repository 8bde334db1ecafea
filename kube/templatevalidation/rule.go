package templatevalidation

import (
	"encoding/json"
	"errors"
	"fmt"
)

// RuleType is the kind of check a rule makes.
type RuleType string

// The rule types upstream understands; any other makes the rule invalid.
const (
	// IntegerRule checks that every matched value lies within min/max.
	IntegerRule RuleType = "integer"
	// StringRule checks that every matched value's length lies within
	// minLength/maxLength.
	StringRule RuleType = "string"
	// EnumRule checks that every matched value is one of values.
	EnumRule RuleType = "enum"
	// RegexRule checks that every matched value matches regex.
	RegexRule RuleType = "regex"
)

// IsValid reports whether upstream knows the rule type.
func (t RuleType) IsValid() bool {
	switch t {
	case IntegerRule, StringRule, EnumRule, RegexRule:
		return true
	}
	return false
}

// Errors a rule can fail with; their texts are upstream's and end up in
// causes as "<rule message>: <error>".
var (
	ErrUnrecognizedRuleType = errors.New("unrecognized Rule type")
	ErrDuplicateRuleName    = errors.New("duplicate Rule Name")
	ErrMissingRequiredKey   = errors.New("missing required key")
	ErrNoValuesFound        = errors.New("no values were found")
	ErrInvalidJSONPath      = errors.New("invalid JSONPath")
)

// Rule is one validation rule, in the JSON form templates write it.
type Rule struct {
	// Type, Name, Path and Message are mandatory. Name must be unique in
	// the rule set; Message prefixes every cause the rule produces.
	Type    RuleType `json:"rule"`
	Name    string   `json:"name"`
	Path    Path     `json:"path"`
	Message string   `json:"message"`

	// Valid, when set, makes the rule apply only to VMs on which this
	// path matches something.
	Valid *Path `json:"valid,omitempty"`
	// JustWarning turns an unsatisfied rule into a warning; a rule that
	// cannot be evaluated still denies.
	JustWarning bool `json:"justWarning,omitempty"`

	// Arguments of the rule types; those of other types are ignored.
	Values    []StringOrPath `json:"values,omitempty"`
	Min       *IntOrPath     `json:"min,omitempty"`
	Max       *IntOrPath     `json:"max,omitempty"`
	MinLength *IntOrPath     `json:"minLength,omitempty"`
	MaxLength *IntOrPath     `json:"maxLength,omitempty"`
	Regex     string         `json:"regex,omitempty"`
}

// Parse decodes a rules annotation, a JSON array of rules. An empty string
// holds no rules. Rules are checked for well-formedness (type, message,
// unique names) by Evaluate, not here, because upstream reports those as
// causes of the VM's denial rather than as a broken annotation.
//
// The error wraps the decoder's error; upstream's webhook answers with the
// unwrapped text (errors.Unwrap(err).Error()) and code 400.
func Parse(rulesJSON string) ([]Rule, error) {
	if rulesJSON == "" {
		return nil, nil
	}
	var rules []Rule
	if err := json.Unmarshal([]byte(rulesJSON), &rules); err != nil {
		return nil, fmt.Errorf("parse validation rules: %w", err)
	}
	return rules, nil
}

// wellFormed checks what upstream checks before applying a rule.
func (r *Rule) wellFormed() error {
	if !r.Type.IsValid() {
		return ErrUnrecognizedRuleType
	}
	if r.Message == "" {
		return ErrMissingRequiredKey
	}
	return nil
}
