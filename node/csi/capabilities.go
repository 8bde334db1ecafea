package csi

import (
	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// singleNodeModes are the access modes a directory on one node's disk can
// honour; multi-node modes would need the directory on every node.
var singleNodeModes = map[csi.VolumeCapability_AccessMode_Mode]bool{
	csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER:        true,
	csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY:   true,
	csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER: true,
	csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER:  true,
}

// supportedCapabilities lists what CreateVolume accepts, so
// ValidateVolumeCapabilities can confirm it back.
func supportedCapabilities() []*csi.VolumeCapability {
	caps := make([]*csi.VolumeCapability, 0, len(singleNodeModes))
	for _, mode := range []csi.VolumeCapability_AccessMode_Mode{
		csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER,
		csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY,
		csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER,
		csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER,
	} {
		caps = append(caps, &csi.VolumeCapability{
			AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
		})
	}
	return caps
}

// capabilityProblem explains why c cannot be served, or returns "" if it can.
// Volumes are directories, so only mount access exists; the requested fs type
// is ignored because there is no filesystem to create.
func capabilityProblem(c *csi.VolumeCapability) string {
	if c == nil {
		return "volume capability is empty"
	}
	if c.GetBlock() != nil {
		return "block access is not supported: hostpath volumes are directories"
	}
	if c.GetMount() == nil {
		return "volume capability has no access type; only mount is supported"
	}
	mode := c.GetAccessMode().GetMode()
	if c.GetAccessMode() == nil || mode == csi.VolumeCapability_AccessMode_UNKNOWN {
		return "volume capability has no access mode"
	}
	if !singleNodeModes[mode] {
		return "access mode " + mode.String() + " is not supported: hostpath volumes live on a single node"
	}
	return ""
}

// checkCapabilities turns the first unsupported capability into an
// InvalidArgument error, as CreateVolume and NodePublishVolume require.
func checkCapabilities(caps []*csi.VolumeCapability) error {
	if len(caps) == 0 {
		return status.Error(codes.InvalidArgument, "volume capabilities are required")
	}
	for _, c := range caps {
		if problem := capabilityProblem(c); problem != "" {
			return status.Error(codes.InvalidArgument, problem)
		}
	}
	return nil
}
