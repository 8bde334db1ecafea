//go:build tools

// Package tools pins containerd, the node's container runtime, with its runc
// shim and ctr. They are built once into the cache by hack/install.sh
// (CGO_ENABLED=0, no btrfs snapshotter).
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
