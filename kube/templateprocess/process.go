package templateprocess

import (
	"fmt"
	"math/rand"
	"sort"

	templatev1 "github.com/openshift/api/template/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ExpressionGenerator is the only generator oc knows, and so the only
// value of a parameter's `generate` that processing accepts.
const ExpressionGenerator = "expression"

// templateKind names the template in processing errors, as oc does.
var templateKind = schema.GroupKind{Group: templatev1.GroupName, Kind: "Template"}

// Options are what the user adds to a template when processing it.
type Options struct {
	// Values set or override parameter values by name (oc process -p and
	// NAME=VALUE arguments). A value given here is used as is, even when
	// empty: the parameter is then not generated.
	Values map[string]string
	// IgnoreUnknownParameters accepts Values for parameters the template
	// does not declare (oc process --ignore-unknown-parameters).
	IgnoreUnknownParameters bool
	// Labels are added to the template's labels, overriding same-named
	// ones, and so to every object (oc process -l).
	Labels map[string]string
	// Random draws generated values. oc uses
	// rand.NewSource(time.Now().UnixNano()); a fixed seed reproduces
	// upstream's values for that seed. It is needed only when a parameter
	// is generated.
	Random rand.Source
}

// Process returns a processed copy of tpl, as oc process --local does; tpl
// itself is not changed. In the copy every parameter holds its final value,
// Message and ObjectLabels are substituted, and each of Objects holds the
// processed object (an *unstructured.Unstructured, or an
// *unstructured.UnstructuredList for an object with an items field) and no
// Raw. An object's Raw must be JSON, as a decoded Template has it; an
// object given as a Go Object instead is processed as its JSON encoding.
//
// Errors read as oc's: values for unknown parameters give oc's aggregate of
// `unknown parameter name "X"` errors; processing failures give the
// *apierrors.StatusError oc reports (`Template.template.openshift.io "t" is
// invalid: ...`), whose Details.Causes list each field error.
func Process(tpl *templatev1.Template, opts Options) (*templatev1.Template, error) {
	out := tpl.DeepCopy()
	mergeLabels(out, opts.Labels)
	if err := applyValues(out, opts.Values, opts.IgnoreUnknownParameters); err != nil {
		return nil, err
	}
	var random *rand.Rand
	if opts.Random != nil {
		random = rand.New(opts.Random)
	} else if name := firstGenerated(out); name != "" {
		return nil, fmt.Errorf("generate a value for parameter %s: no random source in the options", name)
	}
	if errs := process(out, random); len(errs) > 0 {
		return nil, apierrors.NewInvalid(templateKind, out.Name, errs)
	}
	return out, nil
}

// mergeLabels adds the user's labels to the template's, as oc does before
// processing, so that they are substituted like the template's own.
func mergeLabels(tpl *templatev1.Template, labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	if tpl.ObjectLabels == nil {
		tpl.ObjectLabels = map[string]string{}
	}
	for k, v := range labels {
		tpl.ObjectLabels[k] = v
	}
}

// firstGenerated names the first parameter the expression generator would
// fill, "" when there is none.
func firstGenerated(tpl *templatev1.Template) string {
	for _, p := range tpl.Parameters {
		if p.Value == "" && p.Generate == ExpressionGenerator {
			return p.Name
		}
	}
	return ""
}

// process is library-go's Processor.Process: generate values, then
// substitute the message, the labels and every object.
func process(tpl *templatev1.Template, random *rand.Rand) field.ErrorList {
	if errs := generateValues(tpl, random); len(errs) > 0 {
		return errs
	}
	values := map[string]string{}
	for _, p := range tpl.Parameters {
		values[p.Name] = p.Value // a repeated name: the last one counts, as upstream
	}
	tpl.Message, _ = Substitute(values, tpl.Message)
	substituteLabels(values, tpl.ObjectLabels)
	var errs field.ErrorList
	for i, item := range tpl.Objects {
		obj, objErrs := processObject(i, item, values, tpl.ObjectLabels)
		errs = append(errs, objErrs...)
		if obj != nil {
			tpl.Objects[i] = runtime.RawExtension{Object: obj}
		}
	}
	return errs
}

// substituteLabels substitutes the template labels' keys and values, as
// upstream does before it applies them, so they are applied substituted.
func substituteLabels(values, labels map[string]string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := Substitute(values, labels[k])
		nk, _ := Substitute(values, k)
		delete(labels, k)
		labels[nk] = v
	}
}

// generateValues fills the parameters that have no value from their
// generator and reports, with upstream's paths and texts, generators that
// fail and required parameters left empty.
func generateValues(tpl *templatev1.Template, random *rand.Rand) field.ErrorList {
	var errs field.ErrorList
	for i := range tpl.Parameters {
		p := &tpl.Parameters[i]
		if p.Value != "" {
			continue
		}
		path := field.NewPath("template").Child("parameters").Index(i)
		if p.Generate != "" {
			if err := generate(p, path, random); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if p.Value == "" && p.Required {
			errs = append(errs, field.Required(path,
				fmt.Sprintf("template.parameters[%v]: parameter %s is required and must be specified", i, p.Name)))
		}
	}
	return errs
}

// generate sets p's value from its generator.
func generate(p *templatev1.Parameter, path *field.Path, random *rand.Rand) *field.Error {
	if p.Generate != ExpressionGenerator {
		return field.Invalid(path, p.Generate,
			fmt.Sprintf("Unknown generator name '%v' for parameter %s", p.Generate, p.Name))
	}
	value, err := GenerateValue(p.From, random)
	if err != nil {
		// Upstream shows the parameter as it was; a copy keeps it so.
		unchanged := *p
		return field.Invalid(path, &unchanged, err.Error())
	}
	p.Value = value
	return nil
}

// applyValues sets the user's values on the template's parameters, as oc's
// injectUserVars does: a value replaces the parameter's and turns off its
// generator. Names the template does not declare are errors unless
// ignored; they are reported in name order (oc's order is Go's map order).
func applyValues(tpl *templatev1.Template, values map[string]string, ignoreUnknown bool) error {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		if p := parameterByName(tpl, name); p != nil {
			p.Value = values[name]
			p.Generate = ""
		} else if !ignoreUnknown {
			errs = append(errs, unknownParameterError(name))
		}
	}
	return aggregate(errs)
}

// parameterByName is the first parameter with that name, as upstream's
// GetParameterByName, or nil.
func parameterByName(tpl *templatev1.Template, name string) *templatev1.Parameter {
	for i := range tpl.Parameters {
		if tpl.Parameters[i].Name == name {
			return &tpl.Parameters[i]
		}
	}
	return nil
}

// unknownParameterError is oc's text, trailing newline included: oc
// aggregates these errors and prints the aggregate as it is.
func unknownParameterError(name string) error {
	return fmt.Errorf("unknown parameter name %q\n", name)
}
