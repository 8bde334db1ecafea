package modifydataobject

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// The Task's parameter names.
const (
	ParamManifest          = "manifest"
	ParamNamespace         = "namespace"
	ParamWaitForSuccess    = "waitForSuccess"
	ParamAllowReplace      = "allowReplace"
	ParamDeleteObject      = "deleteObject"
	ParamDeleteObjectKind  = "deleteObjectKind"
	ParamDeleteObjectName  = "deleteObjectName"
	ParamTimeout           = "timeout"
	ParamSetOwnerReference = "setOwnerReference"
)

// The pod the step runs in, for setOwnerReference. They are not Task
// parameters: the container step reads them from its environment (the
// downward API) and passes them under these keys; a runner that is not a
// pod leaves them out, and setOwnerReference then fails as upstream does
// outside a TaskRun pod.
const (
	ParamPodName      = "POD_NAME"
	ParamPodNamespace = "POD_NAMESPACE"
)

// The result names.
const (
	ResultName      = stepenv.ResultName
	ResultNamespace = stepenv.ResultNamespace
)

// The kinds the task creates or deletes.
const (
	kindDataVolume = "DataVolume"
	kindDataSource = "DataSource"
	kindPVC        = "PersistentVolumeClaim"
)

// Upstream's option names, which its messages quote.
const (
	optionManifest   = "data-object-manifest"
	optionDeleteKind = "delete-object-kind"
	optionDeleteName = "delete-object-name"
)

// defaultTimeout is the Task's default for timeout.
const defaultTimeout = "1h"

// options are the task's parameters, checked.
type options struct {
	namespace      string
	waitForSuccess bool
	allowReplace   bool
	setOwner       bool
	deleteObject   bool
	deleteKind     string
	deleteName     string
	// timeout bounds the wait for success; 0 waits for ever, as an empty
	// timeout does upstream.
	timeout               time.Duration
	object                *unstructured.Unstructured
	podName, podNamespace *string
}

// parseOptions checks params in upstream's order and with its messages;
// activeNamespace is the namespace when neither the parameter nor the
// manifest names one.
func parseOptions(params stepenv.Params, activeNamespace string) (*options, error) {
	o := &options{
		namespace:      strings.TrimSpace(params.String(ParamNamespace)),
		waitForSuccess: strings.TrimSpace(params.String(ParamWaitForSuccess)) == "true",
		allowReplace:   params.String(ParamAllowReplace) == "true",
		setOwner:       params.String(ParamSetOwnerReference) == "true",
		deleteObject:   params.String(ParamDeleteObject) == "true",
		deleteKind:     params.String(ParamDeleteObjectKind),
		deleteName:     params.String(ParamDeleteObjectName),
		podName:        lookup(params, ParamPodName),
		podNamespace:   lookup(params, ParamPodNamespace),
	}
	if o.deleteObject {
		if err := o.checkDelete(); err != nil {
			return nil, err
		}
	} else if err := o.parseCreate(params); err != nil {
		return nil, err
	}
	if o.namespace == "" {
		o.namespace = activeNamespace
		if o.object != nil && o.object.GetNamespace() != "" {
			o.namespace = o.object.GetNamespace()
		}
	}
	return o, nil
}

// lookup is a string parameter when present.
func lookup(params stepenv.Params, name string) *string {
	if v, ok := params.Strings[name]; ok {
		return &v
	}
	return nil
}

func (o *options) checkDelete() error {
	switch {
	case o.deleteKind == "":
		return fmt.Errorf("%s param has to be specified", optionDeleteKind)
	case o.deleteName == "":
		return fmt.Errorf("%s param has to be specified", optionDeleteName)
	case o.deleteKind != kindDataVolume && o.deleteKind != kindDataSource && o.deleteKind != kindPVC:
		// Upstream names two of the three kinds it accepts; so do we.
		return fmt.Errorf("%s param has to have values %s or %s", optionDeleteKind, kindDataVolume, kindDataSource)
	}
	return nil
}

func (o *options) parseCreate(params stepenv.Params) error {
	timeout := defaultTimeout
	if v := lookup(params, ParamTimeout); v != nil {
		timeout = *v
	}
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil {
			return fmt.Errorf("error during parsing timeout: %w", err)
		}
		o.timeout = d
	}
	manifest := strings.TrimSpace(params.String(ParamManifest))
	if manifest == "" {
		return fmt.Errorf("%s param has to be specified", optionManifest)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(manifest)), 1024).Decode(obj); err != nil {
		return fmt.Errorf("could not read data object manifest: %v", err)
	}
	gvk := obj.GroupVersionKind()
	if gvk.Group != cdiv1beta1.SchemeGroupVersion.Group || (gvk.Kind != kindDataVolume && gvk.Kind != kindDataSource) {
		return fmt.Errorf("could not identify data object, wrong group or kind")
	}
	o.object = obj
	return nil
}
