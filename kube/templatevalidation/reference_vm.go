package templatevalidation

import (
	"reflect"
	"sync"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// refSliceLen is the length of the reference VM's slices, so that the
// indexes rules use exist; refSliceLens overrides it per field name with
// upstream's per-device maximums.
const refSliceLen = 64

var refSliceLens = map[string]int{
	"Disks":      64,
	"Interfaces": 64,
	"Ports":      16,
	"NTPServers": 8,
}

// referenceVM is built once: it is costly (thousands of allocations) and
// only ever read, by jsonpath lookups.
var referenceVM = sync.OnceValue(newReferenceVM)

// newReferenceVM is a VM whose domain has every pointer allocated, every
// map made and every slice filled with zero values, then KubeVirt's API
// defaults applied. A rule path that is legal but absent from the
// evaluated VM resolves on it to the field's zero (or default) value.
func newReferenceVM() *kubevirtv1.VirtualMachine {
	domain := kubevirtv1.DomainSpec{}
	fillStruct(reflect.ValueOf(&domain).Elem())
	vm := &kubevirtv1.VirtualMachine{}
	vm.Spec.Template = &kubevirtv1.VirtualMachineInstanceTemplateSpec{}
	vm.Spec.Template.Spec.Domain = domain
	kubevirtv1.SetObjectDefaults_VirtualMachine(vm)
	// The API defaults leave CD-ROM targets alone; upstream sets what
	// virt-api would.
	readOnly := true
	for i := range vm.Spec.Template.Spec.Domain.Devices.Disks {
		if cd := vm.Spec.Template.Spec.Domain.Devices.Disks[i].CDRom; cd != nil {
			cd.ReadOnly = &readOnly
			if cd.Tray == "" {
				cd.Tray = kubevirtv1.TrayStateClosed
			}
		}
	}
	return vm
}

// fillStruct populates the exported fields of the addressable struct v.
func fillStruct(v reflect.Value) {
	t := v.Type()
	for i := 0; i < v.NumField(); i++ {
		ft := t.Field(i)
		if !ft.IsExported() {
			continue
		}
		fillField(v.Field(i), ft)
	}
}

func fillField(f reflect.Value, ft reflect.StructField) {
	switch ft.Type.Kind() {
	case reflect.Map:
		f.Set(reflect.MakeMap(ft.Type))
	case reflect.Slice:
		n := refSliceLen
		if l, ok := refSliceLens[ft.Name]; ok {
			n = l
		}
		f.Set(reflect.MakeSlice(ft.Type, n, n))
		if ft.Type.Elem().Kind() == reflect.Struct {
			for i := 0; i < n; i++ {
				fillStruct(f.Index(i))
			}
		}
	case reflect.Chan:
		f.Set(reflect.MakeChan(ft.Type, 0))
	case reflect.Pointer:
		p := reflect.New(ft.Type.Elem())
		if ft.Type.Elem().Kind() == reflect.Struct {
			fillStruct(p.Elem())
		}
		f.Set(p)
	case reflect.Struct:
		fillStruct(f)
	}
}
