package commontemplates

import (
	"sort"
	"strconv"
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Upstream's publisher annotations, the same on every template.
const (
	providerDisplayName = "KubeVirt"
	documentationURL    = "https://github.com/kubevirt/common-templates"
	supportURL          = "https://github.com/kubevirt/common-templates/issues"
	structureVersion    = "v1alpha1"
)

// families lists upstream's OS families and virtflow's test guest.
func families(o Options) []*family {
	fs := []*family{
		centosStream9(), centos6(), fedora(), opensuse(),
		rhel7(), rhel8(), rhel9(), ubuntu(),
	}
	fs = append(fs, windowsFamilies()...)
	return append(fs, testGuest(o))
}

// Templates returns every common template, sorted by name, as SSP installs
// them into the commonTemplates namespace.
func Templates(opts Options) []templatev1.Template {
	o := opts.withDefaults()
	var out []templatev1.Template
	for _, f := range families(o) {
		for _, v := range f.variants() {
			out = append(out, build(f, v, o))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// build is one template of a family.
func build(f *family, v variant, o Options) templatev1.Template {
	t := templatev1.Template{
		ObjectMeta: metav1.ObjectMeta{
			Name: f.name(v), Namespace: o.Namespace,
			Labels: labels(f, v, o), Annotations: annotations(f, o),
		},
		Objects:    []runtime.RawExtension{encode(virtualMachine(f, v, o))},
		Parameters: parameters(f, o),
	}
	t.SetGroupVersionKind(templatev1.GroupVersion.WithKind("Template"))
	return t
}

// labels are upstream's selection labels plus the app labels SSP adds.
func labels(f *family, v variant, o Options) map[string]string {
	l := map[string]string{
		LabelWorkloadPrefix + v.workload: "true",
		LabelFlavorPrefix + v.flavor:     "true",
		LabelType:                        TypeBase,
		LabelVersion:                     o.Version,
		LabelArchitecture:                Architecture,
	}
	for _, id := range f.osIDs {
		l[LabelOSPrefix+id] = "true"
	}
	if v == f.defaults {
		l[LabelDefaultOSVariant] = "true"
	}
	for k, val := range appLabels(o) {
		l[k] = val
	}
	return l
}

// appLabels are the app.kubernetes.io labels SSP sets on what it
// reconciles. Like SSP, part-of and version are copied from the SSP
// resource whenever it has labels, even when those two are missing.
func appLabels(o Options) map[string]string {
	l := map[string]string{
		LabelAppName: AppName, LabelAppComponent: AppComponent, LabelAppManagedBy: AppManagedBy,
	}
	if o.SSPLabels != nil {
		l[LabelAppPartOf] = o.SSPLabels[LabelAppPartOf]
		l[LabelAppVersion] = o.SSPLabels[LabelAppVersion]
	}
	return l
}

// annotations describe the template to the console.
func annotations(f *family, o Options) map[string]string {
	a := map[string]string{
		AnnotationDisplayName:      f.displayName,
		AnnotationDescription:      f.description,
		AnnotationTags:             f.tags,
		AnnotationIconClass:        "icon-" + f.icon,
		AnnotationProviderDisplay:  providerDisplayName,
		AnnotationDocumentationURL: documentationURL,
		AnnotationSupportURL:       supportURL,
		AnnotationBindable:         "false",
		AnnotationStructureVersion: structureVersion,
		AnnotationDefaultDisk:      rootDisk,
		AnnotationEditable:         f.editable,
	}
	for _, id := range f.osIDs {
		a[AnnotationOSNamePrefix+id] = f.osName
	}
	if len(f.containerDisks) > 0 {
		a[AnnotationContainerDisks] = lines(f.containerDisks)
	}
	if len(f.images) > 0 {
		a[AnnotationImages] = lines(f.images)
	}
	if f.defaultNetwork {
		a[AnnotationDefaultNetwork] = "default"
	}
	if f.deprecated {
		a[LabelDeprecated] = "true"
	}
	if p := o.Provider; p != nil {
		a[AnnotationProvider] = p.Name
		a[AnnotationProviderSupportLevel] = p.SupportLevel
		a[AnnotationProviderURL] = p.URL
	}
	return a
}

// lines renders a list annotation: one entry a line, each line ended.
func lines(items []string) string {
	return strings.Join(items, "\n") + "\n"
}

// parameters: a generated VM name, the DataSource to clone, and for
// cloud-init guests a generated password.
func parameters(f *family, o Options) []templatev1.Parameter {
	ps := []templatev1.Parameter{
		{Name: ParamName, Description: "VM name", Generate: "expression", From: f.namePrefix + "-[a-z0-9]{" + strconv.Itoa(f.nameRandom) + "}"},
		{Name: ParamDataSourceName, Description: "Name of the DataSource to clone", Value: f.dataSource},
		{Name: ParamDataSourceNamespace, Description: "Namespace of the DataSource", Value: o.DataSourceNamespace},
	}
	if f.cloudUser != "" {
		ps = append(ps, templatev1.Parameter{
			Name: ParamCloudUserPassword, Description: "Randomized password for the cloud-init user " + f.cloudUser,
			Generate: "expression", From: "[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}",
		})
	}
	return ps
}
