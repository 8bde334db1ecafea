package datavolume

import (
	"time"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// AnnStallTimeout on a DataVolume sets how long its source may send
// nothing before an import attempt is retried (a Go duration such as
// "30s"); the importer's default otherwise.
const AnnStallTimeout = "virtflow.io/import-stall-timeout"

// stallTimeout reads AnnStallTimeout; a value that does not parse, or is
// under a second, leaves the default.
func stallTimeout(dv *cdiv1.DataVolume) time.Duration {
	d, err := time.ParseDuration(dv.Annotations[AnnStallTimeout])
	if err != nil || d < time.Second {
		return 0
	}
	return d
}
