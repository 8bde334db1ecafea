package modifyvmtemplate

import (
	"encoding/json"
	"fmt"

	templatev1 "github.com/openshift/api/template/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// firstVM decodes the template's first kubevirt.io/v1 VirtualMachine and
// tells its index among the objects.
func firstVM(tpl *templatev1.Template) (*kubevirtv1.VirtualMachine, int, error) {
	for i, item := range tpl.Objects {
		raw := item.Raw
		if raw == nil && item.Object != nil {
			var err error
			if raw, err = json.Marshal(item.Object); err != nil {
				return nil, -1, fmt.Errorf("encoding object %d of template %s: %w", i, tpl.Name, err)
			}
		}
		var kind metav1.TypeMeta
		if err := json.Unmarshal(raw, &kind); err != nil {
			return nil, -1, fmt.Errorf("decoding object %d of template %s: %w", i, tpl.Name, err)
		}
		if kind.APIVersion != kubevirtv1.GroupVersion.String() || kind.Kind != "VirtualMachine" {
			continue
		}
		vm := &kubevirtv1.VirtualMachine{}
		if err := json.Unmarshal(raw, vm); err != nil {
			return nil, -1, err
		}
		return vm, i, nil
	}
	return nil, -1, errNoVM
}
