// Package vmivolumes reads what a VMI's volumes refer to, for every
// component that turns them into pod volumes, node paths or conditions.
package vmivolumes

import kubevirtv1 "kubevirt.io/api/core/v1"

// ClaimName is the PVC behind a persistentVolumeClaim or dataVolume volume
// (a DataVolume's claim has its name), "" for any other volume.
func ClaimName(v kubevirtv1.Volume) string {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName
	case v.DataVolume != nil:
		return v.DataVolume.Name
	}
	return ""
}
