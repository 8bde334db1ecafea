//go:build tools

// Package tools pins Multus CNI, the meta-plugin cluster-network-addons-
// operator installs on every node as the cluster's CNI network: its thin
// plugin (cmd/multus) is a main package, which cannot be imported; the
// packages it is made of are, which keeps the module's requirements (the
// command's imports). It is built once into the cache (CGO_ENABLED=0).
package tools

import (
	_ "github.com/containernetworking/cni/pkg/skel"
	_ "github.com/containernetworking/cni/pkg/version"
	_ "gopkg.in/k8snetworkplumbingwg/multus-cni.v4/pkg/multus"
)
