package hco

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// knownFeatureGates are the JSON names of HyperConvergedFeatureGates.
var knownFeatureGates = func() map[string]bool {
	known := map[string]bool{}
	t := reflect.TypeOf(hcov1beta1.HyperConvergedFeatureGates{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			known[name] = true
		}
	}
	return known
}()

// validateFeatureGateNames rejects gates the API does not define; the CRD
// keeps unknown gates precisely so that they reach this check.
func validateFeatureGateNames(raw []byte) error {
	var obj struct {
		Spec struct {
			FeatureGates map[string]json.RawMessage `json:"featureGates"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("decoding spec.featureGates: %w", err)
	}
	var unknown []string
	for name := range obj.Spec.FeatureGates {
		if !knownFeatureGates[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	known := make([]string, 0, len(knownFeatureGates))
	for k := range knownFeatureGates {
		known = append(known, k)
	}
	sort.Strings(known)
	return fmt.Errorf("unknown feature gate(s) %s in spec.featureGates; known feature gates are: %s",
		strings.Join(unknown, ", "), strings.Join(known, ", "))
}
