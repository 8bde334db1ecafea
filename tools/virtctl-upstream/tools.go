//go:build tools

// Package tools pins the upstream KubeVirt virtctl client, built once into the
// cache by hack/upstream-virtctl.sh so integration tests can check that an
// unmodified upstream virtctl works against our API.
package tools

import (
	_ "kubevirt.io/kubevirt/cmd/virtctl"
)
