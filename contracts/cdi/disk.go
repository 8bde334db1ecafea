package cdi

import (
	"context"
	"time"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// Disk activity type names, registered on a node's task queue.
const (
	ImportDiskName    = "storage.ImportDisk"
	CleanupDiskName   = "storage.CleanupImport"
	ReceiveUploadName = "storage.ReceiveUpload"
	CloneDiskName     = "storage.CloneDisk"
)

// The disk activities, typed; see DiskActivities for what each does.
var (
	ImportDisk = typed.Activity[ImportRequest, ImportResult]{Name: ImportDiskName}
	// CleanupDisk takes the request and removeDisk as two arguments, as
	// recorded histories hold them.
	CleanupDisk   = typed.VoidActivity2[ImportRequest, bool]{Name: CleanupDiskName}
	ReceiveUpload = typed.Activity[ImportRequest, ImportResult]{Name: ReceiveUploadName}
	CloneDisk     = typed.Activity[CloneRequest, ImportResult]{Name: CloneDiskName}
)

// DiskFileName is the disk image in a filesystem volume, as CDI writes it.
const DiskFileName = "disk.img"

// UploadPath is where a node's upload server takes the image.
const UploadPath = "/v1beta1/upload"

// Annotations on the claim a disk activity fills.
const (
	// AnnUploadServer is host:port of the upload server while it listens:
	// cdi-uploadproxy routes an upload by it. Status does not read it;
	// the workflow's memo carries the same address (ActivityProgress).
	AnnUploadServer = "virtflow.io/storage.upload.server"
	// AnnProgress ("NN.NN%") and AnnAttempt (the running attempt's
	// number) were written by disk activities before they reported to
	// their workflow (ProgressSignal). Only the reconcilers' transitional
	// fallback for runs started before then reads them, and cleanup
	// removes them; both go with that fallback.
	AnnProgress = "virtflow.io/storage.progress"
	AnnAttempt  = "virtflow.io/storage.attempt"
)

// Error types of disk failures a retry cannot fix; workflows and
// conditions name them.
const (
	ErrTypeSourceUnreachable = "SourceUnreachable"
	ErrTypeUnsupportedImage  = "UnsupportedImage"
	ErrTypeTargetTooSmall    = "TargetTooSmall"
	ErrTypeInvalidSource     = "InvalidSource"
	// ErrTypeTransferStalled is a source that stopped sending. A few
	// attempts are retried from the last checkpoint; one that still
	// stalls where the last one did is final.
	ErrTypeTransferStalled = "TransferStalled"
	// ErrTypeVolumeMismatch is a request the cluster does not bear out:
	// its claim is not the one its DataVolume (or the import populator)
	// names, not bound to a hostpath volume of the activity's node, or
	// its directories or source differ from what the cluster says.
	// Nothing is written.
	ErrTypeVolumeMismatch = "VolumeMismatch"
	// ErrTypeCloneNotAuthorized is a clone whose DataVolume's namespace
	// may not clone from the source namespace, in CDI's words.
	ErrTypeCloneNotAuthorized = "CloneNotAuthorized"
)

// SourceRef names an http(s) or registry source and the objects holding
// its credentials, as a DataVolume does; secrets never pass through
// workflow history.
type SourceRef struct {
	URL           string `json:"url"`
	SecretRef     string `json:"secretRef,omitempty"`
	CertConfigMap string `json:"certConfigMap,omitempty"`
	// Registry marks a docker:// image holding the disk under /disk/;
	// Insecure allows it over plain http (CDIConfig's insecureRegistries).
	Registry bool `json:"registry,omitempty"`
	Insecure bool `json:"insecure,omitempty"`
}

// ImportRequest is one disk to fill on a node.
type ImportRequest struct {
	// Namespace holds the source's secret and config map, and the claim.
	Namespace string `json:"namespace"`
	// Claim is the claim being filled; an upload's server is noted on it.
	Claim string `json:"claim,omitempty"`
	// VolumeDir is the volume's directory on the node; the disk is
	// VolumeDir/disk.img, as CDI writes filesystem volumes. The activities
	// find it themselves from the claim's PersistentVolume and refuse a
	// request whose VolumeDir differs; it stays for recorded histories and
	// the Web UI.
	VolumeDir string `json:"volumeDir"`
	// Source is read unless Blank is set.
	Source SourceRef `json:"source"`
	Blank  bool      `json:"blank,omitempty"`
	// Size is the disk's usable size in bytes.
	Size int64 `json:"size"`
	// Key names the import's scratch directory: the UID of the
	// DataVolume, or of the claim the import populator fills, that the
	// workflow serves; the activities check it against the cluster.
	Key string `json:"key"`
	// StallTimeout is how long the source may send nothing before the
	// attempt gives up and is retried; the activities' default when zero.
	StallTimeout time.Duration `json:"stallTimeout,omitempty"`
}

// CloneRequest copies one volume's disk into another on the same node.
type CloneRequest struct {
	// SourceDir and VolumeDir are the source's and the target's
	// directories on the node. As ImportRequest's VolumeDir, the activity
	// finds both from the cluster (the source from the target
	// DataVolume's spec) and refuses a request that says otherwise.
	SourceDir string `json:"sourceDir"`
	VolumeDir string `json:"volumeDir"`
	// Size is the target disk's usable size; it is never smaller than the
	// source's.
	Size int64  `json:"size"`
	Key  string `json:"key"`
	// Namespace and Claim name the target claim, which its DataVolume
	// (UID Key) must control; a request without them is refused.
	Namespace string `json:"namespace,omitempty"`
	Claim     string `json:"claim,omitempty"`
}

// ImportResult describes the written disk.
type ImportResult struct {
	Format      string `json:"format,omitempty"`
	VirtualSize int64  `json:"virtualSize"`
	// ResumedFrom is the offset the final attempt started at: non-zero
	// when an earlier attempt was cut short and its work was kept.
	ResumedFrom int64 `json:"resumedFrom,omitempty"`
}

// DiskActivities are the node-local disk activities the import, upload
// and clone workflows call by type name on the volume's node.
type DiskActivities interface {
	// ImportDisk fills the volume's disk from its source.
	ImportDisk(ctx context.Context, req ImportRequest) (ImportResult, error)
	// CleanupImport removes the scratch space and, when removeDisk is set
	// (the fill was cancelled), the partial disk.
	CleanupImport(ctx context.Context, req ImportRequest, removeDisk bool) error
	// ReceiveUpload serves one upload into the volume.
	ReceiveUpload(ctx context.Context, req ImportRequest) (ImportResult, error)
	// CloneDisk copies the source volume's disk into the target's.
	CloneDisk(ctx context.Context, req CloneRequest) (ImportResult, error)
}

// RegisterDiskActivities binds each disk activity to its implementation,
// through the typed descriptors so that a signature that drifted from the
// workflows' calls does not compile.
func RegisterDiskActivities(r registry.Activities, a DiskActivities) {
	typed.RegisterActivities(r,
		ImportDisk.Bind(a.ImportDisk),
		CleanupDisk.Bind(a.CleanupImport),
		ReceiveUpload.Bind(a.ReceiveUpload),
		CloneDisk.Bind(a.CloneDisk),
	)
}
