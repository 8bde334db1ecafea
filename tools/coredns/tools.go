//go:build tools

// Package tools pins CoreDNS, the cluster DNS of the embedded node. Its
// command is the module's root package, which cannot be imported; the two
// packages it is made of are, which keeps the module's requirements tidy.
// It is built once into the cache (CGO_ENABLED=0).
package tools

import (
	_ "github.com/coredns/coredns/core/plugin"
	_ "github.com/coredns/coredns/coremain"
)
