package operands

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// Reason and message of a false DICTConditionDeployed, as HCO words them.
const (
	dictUnsupportedReason  = "UnsupportedArchitectures"
	dictUnsupportedMessage = "DataImportCronTemplate has no supported architectures for the current cluster"
)

// BootImageNamespace is where the HyperConverged's boot sources live.
func BootImageNamespace(hc *hcov1beta1.HyperConverged) string {
	if ns := hc.Spec.CommonBootImageNamespace; ns != nil && *ns != "" {
		return *ns
	}
	return DefaultBootImageNamespace
}

// DataImportCronTemplates is the effective template list, as HCO reports it
// in status.dataImportCronTemplates: the built-in templates unless
// enableCommonBootImageImport is false, each replaced or dropped by a
// template of the same name in the HyperConverged, then the HyperConverged's
// other enabled templates; sorted by name. A built-in template nobody
// customised goes to commonBootImageNamespace when one is set; a customised
// one goes where its customisation says. now stamps conditions that change;
// conditions that hold keep the time the HyperConverged's status records.
//
// The admission webhook refuses two templates of one name; should the
// HyperConverged hold them anyway, the first wins.
func DataImportCronTemplates(hc *hcov1beta1.HyperConverged, now metav1.Time) []hcov1beta1.DataImportCronTemplateStatus {
	custom := map[string]hcov1beta1.DataImportCronTemplate{}
	for _, d := range hc.Spec.DataImportCronTemplates {
		if _, dup := custom[d.Name]; !dup {
			custom[d.Name] = d
		}
	}
	var list []hcov1beta1.DataImportCronTemplateStatus
	if hc.Spec.EnableCommonBootImageImport == nil || *hc.Spec.EnableCommonBootImageImport {
		list = appendCommonDICTs(list, hc, custom)
	}
	list = appendCustomDICTs(list, hc.Spec.DataImportCronTemplates)
	if multiArchEnabled(hc) {
		for i := range list {
			seedConditions(&list[i], hc.Status.DataImportCronTemplates)
			setMultiArchStatus(&list[i], hc.Status.NodeInfo.WorkloadsArchitectures, now)
		}
	}
	slices.SortStableFunc(list, func(a, b hcov1beta1.DataImportCronTemplateStatus) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// appendCommonDICTs adds the built-in templates, customised or dropped by
// the HyperConverged's templates of the same name.
func appendCommonDICTs(list []hcov1beta1.DataImportCronTemplateStatus, hc *hcov1beta1.HyperConverged,
	custom map[string]hcov1beta1.DataImportCronTemplate) []hcov1beta1.DataImportCronTemplateStatus {
	for _, common := range commonDICTs() {
		// HCO picks one random time of day per cluster, so that clusters
		// do not all poll the registries at once.
		if s := hc.Status.DataImportSchedule; s != "" {
			common.Spec.Schedule = s
		}
		target := hcov1beta1.DataImportCronTemplateStatus{
			DataImportCronTemplate: common,
			Status:                 hcov1beta1.DataImportCronStatus{CommonTemplate: true},
		}
		if cr, ok := custom[common.Name]; ok {
			if !dictEnabled(cr) {
				continue
			}
			customizeCommonDICT(&target, cr, multiArchEnabled(hc))
		} else if ns := hc.Spec.CommonBootImageNamespace; ns != nil && *ns != "" {
			target.Namespace = *ns
		}
		list = append(list, target)
	}
	return list
}

// customizeCommonDICT applies the HyperConverged's template to the built-in
// one of its name: its spec (the built-in schedule when it sets none), its
// annotations and its namespace replace the built-in ones; the name and
// labels stay.
func customizeCommonDICT(target *hcov1beta1.DataImportCronTemplateStatus, cr hcov1beta1.DataImportCronTemplate, multiArch bool) {
	spec := target.Spec
	if cr.Spec != nil {
		spec = cr.Spec.DeepCopy()
		if spec.Schedule == "" {
			spec.Schedule = target.Spec.Schedule
		}
	}
	customizeCommonDICTAnnotations(target, cr, multiArch)
	target.Spec = spec
	target.Namespace = cr.Namespace
	target.Status.Modified = true
}

// customizeCommonDICTAnnotations merges the customisation's annotations
// into the built-in template's. The architecture list describes the image:
// while the registry is the built-in one, the built-in list holds whatever
// the customisation says; once the registry changes, only the
// customisation's own list can be right.
func customizeCommonDICTAnnotations(target *hcov1beta1.DataImportCronTemplateStatus, cr hcov1beta1.DataImportCronTemplate, multiArch bool) {
	registryModified := false
	if cr.Spec != nil && cr.Spec.Template.Spec.Source != nil && cr.Spec.Template.Spec.Source.Registry != nil {
		registryModified = !reflect.DeepEqual(cr.Spec.Template.Spec.Source.Registry, target.Spec.Template.Spec.Source.Registry)
	}
	crAnnotations := maps.Clone(cr.Annotations)
	if crAnnotations != nil {
		if multiArch && !registryModified {
			if archs, ok := target.Annotations[MultiArchDICTAnnotation]; ok {
				crAnnotations[MultiArchDICTAnnotation] = archs
			} else {
				delete(crAnnotations, MultiArchDICTAnnotation)
			}
		}
		if target.Annotations == nil {
			target.Annotations = crAnnotations
		} else {
			maps.Copy(target.Annotations, crAnnotations)
		}
	}
	if multiArch && registryModified {
		if _, ok := crAnnotations[MultiArchDICTAnnotation]; !ok {
			delete(target.Annotations, MultiArchDICTAnnotation)
		}
	}
}

// appendCustomDICTs adds the HyperConverged's enabled templates that do not
// customise a built-in one, in the HyperConverged's order.
func appendCustomDICTs(list []hcov1beta1.DataImportCronTemplateStatus, dicts []hcov1beta1.DataImportCronTemplate) []hcov1beta1.DataImportCronTemplateStatus {
	common := map[string]bool{}
	for _, d := range commonDICTs() {
		common[d.Name] = true
	}
	seen := map[string]bool{}
	for _, d := range dicts {
		if common[d.Name] || seen[d.Name] || !dictEnabled(d) {
			continue
		}
		seen[d.Name] = true
		list = append(list, hcov1beta1.DataImportCronTemplateStatus{DataImportCronTemplate: *d.DeepCopy()})
	}
	return list
}

// dictEnabled is false only for a template annotated as disabled.
func dictEnabled(d hcov1beta1.DataImportCronTemplate) bool {
	v, ok := d.Annotations[DataImportCronEnabledAnnotation]
	return !ok || strings.EqualFold(v, "true")
}

// multiArchEnabled tells whether boot sources are imported per node
// architecture.
func multiArchEnabled(hc *hcov1beta1.HyperConverged) bool {
	return isTrue(hc.Spec.FeatureGates.EnableMultiArchBootImageImport)
}

// seedConditions starts a template from the conditions the status last
// reported for it, so an unchanged condition keeps its transition time.
func seedConditions(d *hcov1beta1.DataImportCronTemplateStatus, prior []hcov1beta1.DataImportCronTemplateStatus) {
	for _, p := range prior {
		if p.Name == d.Name {
			d.Status.Conditions = slices.Clone(p.Status.Conditions)
			return
		}
	}
}

// setMultiArchStatus narrows a template's architecture list to those of
// the workload nodes, keeping the original list in the status; a template
// left with none is marked as not deployed.
func setMultiArchStatus(d *hcov1beta1.DataImportCronTemplateStatus, workloadArchs []string, now metav1.Time) {
	original, ok := d.Annotations[MultiArchDICTAnnotation]
	if !ok {
		return
	}
	var supported []string
	for arch := range strings.SplitSeq(original, ",") {
		if slices.Contains(workloadArchs, arch) {
			supported = append(supported, arch)
		}
	}
	if len(supported) == 0 {
		meta.SetStatusCondition(&d.Status.Conditions, metav1.Condition{
			Type: DICTConditionDeployed, Status: metav1.ConditionFalse, LastTransitionTime: now,
			Reason: dictUnsupportedReason, Message: dictUnsupportedMessage,
		})
	} else {
		meta.RemoveStatusCondition(&d.Status.Conditions, DICTConditionDeployed)
	}
	d.Annotations[MultiArchDICTAnnotation] = strings.Join(supported, ",")
	d.Status.OriginalSupportedArchitectures = original
}

// sspDataImportCronTemplates converts the effective list to SSP's
// templates: templates no node can run are left out, every template asks
// for immediate binding unless it says otherwise, and the architecture
// list is kept only for multi-architecture import, the one thing SSP
// reads it for.
func sspDataImportCronTemplates(hc *hcov1beta1.HyperConverged, list []hcov1beta1.DataImportCronTemplateStatus) []sspv1beta3.DataImportCronTemplate {
	multiArch := multiArchEnabled(hc)
	var out []sspv1beta3.DataImportCronTemplate
	for _, d := range list {
		if multiArch && meta.IsStatusConditionFalse(d.Status.Conditions, DICTConditionDeployed) {
			continue
		}
		t := sspv1beta3.DataImportCronTemplate{ObjectMeta: *d.ObjectMeta.DeepCopy(), Spec: cdiCronSpec(d.Spec)}
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		if _, ok := t.Annotations[CDIImmediateBindAnnotation]; !ok {
			t.Annotations[CDIImmediateBindAnnotation] = "true"
		}
		if !multiArch {
			delete(t.Annotations, MultiArchDICTAnnotation)
		}
		out = append(out, t)
	}
	return out
}

// cdiCronSpec converts a template spec to CDI's type. The HyperConverged
// types keep CDI's JSON shape, so a JSON round trip carries every field
// they model; failing would mean the shapes diverged, a programming error.
func cdiCronSpec(s *hcov1beta1.DataImportCronSpec) cdiv1beta1.DataImportCronSpec {
	var out cdiv1beta1.DataImportCronSpec
	if s == nil {
		return out
	}
	raw, err := json.Marshal(s)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		panic(fmt.Sprintf("DataImportCron template spec does not fit CDI's schema: %v", err))
	}
	return out
}
