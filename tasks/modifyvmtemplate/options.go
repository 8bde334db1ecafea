package modifyvmtemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/keyvalues"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// options are the parameters, checked and converted.
type options struct {
	name, namespace                               string
	cpuSockets, cpuCores, cpuThreads              uint32
	memory                                        *resource.Quantity
	templateLabels, templateAnnotations           map[string]string
	vmLabels, vmAnnotations                       map[string]string
	disks                                         []kubevirtv1.Disk
	volumes                                       []kubevirtv1.Volume
	dataVolumeTemplates                           []kubevirtv1.DataVolumeTemplateSpec
	parameters                                    []templatev1.Parameter
	deleteDisks, deleteVolumes, deleteDataVolumes bool
	deleteParameters, deleteTemplate              bool
}

// flags are the true/false parameters with the variables the Task passes
// them in, in the order upstream's parser reads them.
var flags = []struct{ param, env string }{
	{ParamDeleteDatavolumeTemplate, "DELETE_DATAVOLUME_TEMPLATE"},
	{ParamDeleteVolumes, "DELETE_VOLUMES"},
	{ParamDeleteDisks, "DELETE_DISKS"},
	{ParamDeleteTemplateParameters, "DELETE_TEMPLATE_PARAMETERS"},
	{ParamDeleteTemplate, "DELETE_TEMPLATE"},
}

// readOptions checks and converts params in upstream's order, with its
// texts: the flags first, then the JSON lists, then the rest.
func readOptions(params stepenv.Params, active string) (*options, error) {
	o := &options{
		name:      strings.TrimSpace(params.String(ParamTemplateName)),
		namespace: strings.TrimSpace(params.String(ParamTemplateNamespace)),
	}
	if err := o.readFlags(params); err != nil {
		return nil, err
	}
	if err := o.readJSONLists(params); err != nil {
		return nil, err
	}
	if err := o.readValues(params); err != nil {
		return nil, err
	}
	if o.namespace == "" {
		o.namespace = active
	}
	o.templateAnnotations = trimmedMap(o.templateAnnotations)
	o.vmAnnotations = trimmedMap(o.vmAnnotations)
	return o, nil
}

// readFlags parses the true/false parameters; an absent one is false.
func (o *options) readFlags(params stepenv.Params) error {
	targets := map[string]*bool{
		ParamDeleteDatavolumeTemplate: &o.deleteDataVolumes, ParamDeleteVolumes: &o.deleteVolumes,
		ParamDeleteDisks: &o.deleteDisks, ParamDeleteTemplateParameters: &o.deleteParameters,
		ParamDeleteTemplate: &o.deleteTemplate,
	}
	for _, f := range flags {
		v, ok := params.Strings[f.param]
		if !ok {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("error processing environment variable %s: %v", f.env, err)
		}
		*targets[f.param] = b
	}
	return nil
}

// readJSONLists decodes the disks, volumes, data volume templates and
// template parameters.
func (o *options) readJSONLists(params stepenv.Params) error {
	if err := decodeEach(params.Array(ParamDisks), "wrong disk definition", &o.disks); err != nil {
		return err
	}
	if err := decodeEach(params.Array(ParamVolumes), "wrong volume definition", &o.volumes); err != nil {
		return err
	}
	if err := decodeEach(params.Array(ParamDatavolumeTemplates), "wrong datavolume template definition", &o.dataVolumeTemplates); err != nil {
		return err
	}
	return decodeEach(params.Array(ParamTemplateParameters), "wrong parameter definition", &o.parameters)
}

// decodeEach decodes every JSON item into out, reporting every bad one.
func decodeEach[T any](items []string, what string, out *[]T) error {
	errs := &multiError{}
	for _, item := range items {
		var v T
		errs.add(what, json.Unmarshal([]byte(item), &v))
		*out = append(*out, v)
	}
	return errs.orNil()
}

// readValues checks the template name, memory, CPU counts, labels and
// annotations.
func (o *options) readValues(params stepenv.Params) error {
	if o.name == "" {
		return errors.New("template-name param has to be specified")
	}
	errs := &multiError{}
	if m := params.String(ParamMemory); m != "" {
		q, err := resource.ParseQuantity(m)
		errs.add("wrong memory value", err)
		if err == nil {
			o.memory = &q
		}
	}
	o.cpuCores = cpuCount(params.String(ParamCPUCores), "wrong cpu cores value", errs)
	o.cpuThreads = cpuCount(params.String(ParamCPUThreads), "wrong cpu threads value", errs)
	o.cpuSockets = cpuCount(params.String(ParamCPUSockets), "wrong cpu sockets value", errs)
	var err error
	if o.templateLabels, err = keyvalues.Parse(withoutSpaces(params.Array(ParamTemplateLabels))); err != nil {
		// Upstream stops at bad template labels.
		errs.add("wrong template labels", err)
		return errs
	}
	o.templateAnnotations, err = keyvalues.Parse(params.Array(ParamTemplateAnnotations))
	errs.add("wrong template annotations", err)
	o.vmLabels, err = keyvalues.Parse(withoutSpaces(params.Array(ParamVMLabels)))
	errs.add("wrong vm labels", err)
	o.vmAnnotations, err = keyvalues.Parse(params.Array(ParamVMAnnotations))
	errs.add("wrong vm annotations", err)
	return errs.orNil()
}

// cpuCount is a CPU count parameter. Upstream checks it in any base Go
// reads ("0x10") but uses its decimal value, 0 (unchanged) when it has none.
func cpuCount(value, what string, errs *multiError) uint32 {
	if value == "" {
		return 0
	}
	if _, err := strconv.ParseUint(value, 0, 32); err != nil {
		errs.add(what, err)
		return 0
	}
	n, _ := strconv.ParseUint(value, 10, 32)
	return uint32(n)
}

// withoutSpaces drops every space of label items: label keys and values
// cannot hold one.
func withoutSpaces(items []string) []string {
	out := make([]string, len(items))
	for i, item := range items {
		out[i] = strings.ReplaceAll(item, " ", "")
	}
	return out
}

// trimmedMap trims annotation keys and values.
func trimmedMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}
