package commontemplates

import (
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
)

// Fate is what SSP does with a common template found installed that the
// current release does not install.
type Fate int

const (
	// Keep leaves the template as it is: the release installs it, it is
	// being deleted, it is not a common template, or it is of this
	// release or a newer one.
	Keep Fate = iota
	// Deprecate keeps the template for the VMs created from it but hides
	// it from selection: see Deprecated.
	Deprecate
	// Delete removes the template: it is built for a CPU architecture the
	// cluster does not have, so no VM can run from it.
	Delete
)

// String names the fate.
func (f Fate) String() string {
	switch f {
	case Deprecate:
		return "Deprecate"
	case Delete:
		return "Delete"
	}
	return "Keep"
}

// FateOf decides, as SSP's common-templates operand does, what becomes of
// an installed template. installing holds the names of the templates the
// current release installs. A version label that cannot be read counts as
// older; if opts.Version itself cannot be read nothing is deprecated,
// since nothing can be ordered against it.
func FateOf(installed *templatev1.Template, installing map[string]bool, opts Options) Fate {
	o := opts.withDefaults()
	if installing[installed.Name] || installed.DeletionTimestamp != nil ||
		installed.Labels[LabelType] != TypeBase {
		return Keep
	}
	if arch := installed.Labels[LabelArchitecture]; arch != "" && arch != Architecture {
		return Delete
	}
	latest, ok := parseVersion(o.Version)
	if !ok {
		return Keep
	}
	if v, ok := parseVersion(installed.Labels[LabelVersion]); ok && latest.compare(v) <= 0 {
		return Keep
	}
	return Deprecate
}

// Deprecated returns the installed template as SSP leaves it once
// deprecated: the deprecated label and annotation set, the os, workload
// and flavor labels removed so the console and `oc process` selections no
// longer offer it, and SSP's app labels set. Everything else, VMs created
// from it included, is untouched.
func Deprecated(installed *templatev1.Template, opts Options) *templatev1.Template {
	o := opts.withDefaults()
	t := installed.DeepCopy()
	t.Labels = DeprecatedLabels(t.Labels, o)
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	t.Annotations[LabelDeprecated] = "true"
	return t
}

// DeprecatedLabels is the label half of Deprecated: the labels a
// deprecated template ends up with, given the ones it had.
func DeprecatedLabels(labels map[string]string, opts Options) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if !strings.HasPrefix(k, LabelOSPrefix) && !strings.HasPrefix(k, LabelWorkloadPrefix) &&
			!strings.HasPrefix(k, LabelFlavorPrefix) {
			out[k] = v
		}
	}
	for k, v := range appLabels(opts.withDefaults()) {
		out[k] = v
	}
	out[LabelDeprecated] = "true"
	return out
}

// Retire applies FateOf to the templates installed in the common
// templates namespace against the templates this release installs, and
// returns the deprecated forms of those to deprecate and those to delete,
// in the order given.
func Retire(installed []templatev1.Template, opts Options) (deprecated, deleted []templatev1.Template) {
	installing := map[string]bool{}
	for _, t := range Templates(opts) {
		installing[t.Name] = true
	}
	for i := range installed {
		switch FateOf(&installed[i], installing, opts) {
		case Deprecate:
			deprecated = append(deprecated, *Deprecated(&installed[i], opts))
		case Delete:
			deleted = append(deleted, installed[i])
		}
	}
	return deprecated, deleted
}
