// Package migrationproxy carries a live migration's streams between two
// nodes, as upstream's virt-handler does: libvirt and QEMU on both sides
// see only unix sockets in their launcher pods, and the node agents join
// them over mutually authenticated TLS.
//
// On the target node, Target listens on a TCP port per stream and joins
// each accepted connection to a unix socket in the target launcher pod
// (its libvirt daemon, QEMU's incoming memory stream, the block stream).
// On the source node, Source creates a unix socket per stream in the
// source launcher pod and joins each connection made to it to the
// target's port for that stream. The socket names are upstream's, so the
// same URIs work on both sides.
package migrationproxy
