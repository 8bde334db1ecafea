// Package images builds container images from files on this machine, with
// no registry and no container engine: the embedded node imports them into
// containerd, the way a cluster's nodes would pull them. Layers are
// deterministic (fixed times and owners), so an unchanged input yields the
// same digest and an import is a no-op.
package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Entry is one file, directory or symbolic link of a layer.
type Entry struct {
	// Path is absolute inside the image, e.g. /bin/busybox.
	Path string
	// Mode holds the permission bits (0o755 for an executable).
	Mode os.FileMode
	// Source is a file on this machine holding the content.
	Source string
	// Data is the content when Source is empty.
	Data []byte
	// Link makes the entry a symbolic link to Link.
	Link string
	// Dir makes the entry a directory.
	Dir bool
}

// Image is an image made of layers of entries, for linux/amd64.
type Image struct {
	// Ref names the image once imported, e.g. virtflow.local/pause:1.
	Ref string
	// BaseTars are uncompressed tar files (a root filesystem from
	// mmdebstrap, say) applied first, one layer each; each is compressed
	// once into <file>.gz beside it.
	BaseTars []string
	// Layers are applied in order, after BaseTars.
	Layers [][]Entry
	// CacheDir, when set, keeps each layer of entries compressed, keyed by
	// the entries and their content, so an unchanged layer is not packed
	// and compressed again.
	CacheDir string
	// Entrypoint, Cmd, Env, User and WorkingDir are the image's defaults.
	Entrypoint, Cmd, Env []string
	User, WorkingDir     string
}

// Command is an image holding one executable, source on this machine, at
// path, which is its entrypoint; user runs it when not empty.
func Command(ref, source, path, user string) Image {
	return Image{
		Ref:        ref,
		Layers:     [][]Entry{{{Path: path, Source: source, Mode: 0o755}}},
		Entrypoint: []string{path}, User: user,
	}
}

// epoch is every entry's time: a rebuilt layer must hash the same.
var epoch = time.Unix(0, 0).UTC()

// Build assembles the image.
func (img Image) Build() (v1.Image, error) {
	out := empty.Image
	for _, file := range img.BaseTars {
		// Cached: the digest and the archive share one compression, and
		// that is kept on disk for the next start.
		layer, err := tarball.LayerFromFile(compressedTar(file), tarball.WithCompressionLevel(gzip.BestSpeed), tarball.WithCompressedCaching)
		if err != nil {
			return nil, fmt.Errorf("reading layer %s of %s: %w", file, img.Ref, err)
		}
		if out, err = mutate.AppendLayers(out, layer); err != nil {
			return nil, fmt.Errorf("adding layer %s of %s: %w", file, img.Ref, err)
		}
	}
	for i, entries := range img.Layers {
		layer, err := img.entriesLayer(entries)
		if err != nil {
			return nil, fmt.Errorf("building layer %d of %s: %w", i, img.Ref, err)
		}
		if out, err = mutate.AppendLayers(out, layer); err != nil {
			return nil, fmt.Errorf("adding layer %d of %s: %w", i, img.Ref, err)
		}
	}
	cfg, err := out.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading config of %s: %w", img.Ref, err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = "linux", "amd64", v1.Time{Time: epoch}
	cfg.Config.Entrypoint, cfg.Config.Cmd, cfg.Config.Env = img.Entrypoint, img.Cmd, img.Env
	cfg.Config.User, cfg.Config.WorkingDir = img.User, img.WorkingDir
	return mutate.ConfigFile(out, cfg)
}

// entriesLayer is a layer of entries, from the cache when there is one.
func (img Image) entriesLayer(entries []Entry) (v1.Layer, error) {
	if img.CacheDir != "" {
		if gz, err := cachedLayer(img.CacheDir, entries); err == nil {
			return tarball.LayerFromFile(gz)
		}
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return layerTar(entries)
	}, tarball.WithCompressionLevel(gzip.BestSpeed))
}

// WriteArchive writes a built image as an image archive (`docker save`'s
// format, which `ctr images import` reads) tagged ref.
func WriteArchive(file, ref string, built v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	if err := tarball.WriteToFile(file, tag, built); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// layerTar renders entries, with every parent directory they need, as an
// uncompressed tar stream in path order.
func layerTar(entries []Entry) (io.ReadCloser, error) {
	all := withParents(entries)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range all {
		if err := writeEntry(tw, e); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing layer: %w", err)
	}
	return io.NopCloser(&buf), nil
}

func withParents(entries []Entry) []Entry {
	seen := map[string]bool{}
	var all []Entry
	for _, e := range entries {
		for dir := path.Dir(path.Clean(e.Path)); dir != "/" && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			all = append(all, Entry{Path: dir, Dir: true, Mode: 0o755})
		}
	}
	for _, e := range entries {
		if !seen[path.Clean(e.Path)] {
			seen[path.Clean(e.Path)] = true
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return path.Clean(all[i].Path) < path.Clean(all[j].Path) })
	return all
}

func writeEntry(tw *tar.Writer, e Entry) error {
	hdr := &tar.Header{Name: path.Clean(e.Path)[1:], Mode: int64(e.Mode.Perm()), ModTime: epoch, Format: tar.FormatPAX}
	switch {
	case e.Dir:
		hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		return tw.WriteHeader(hdr)
	case e.Link != "":
		hdr.Typeflag, hdr.Linkname, hdr.Mode = tar.TypeSymlink, e.Link, 0o777
		return tw.WriteHeader(hdr)
	}
	data := e.Data
	if e.Source != "" {
		var err error
		if data, err = os.ReadFile(e.Source); err != nil {
			return fmt.Errorf("reading %s for %s: %w", e.Source, e.Path, err)
		}
	}
	hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("writing header of %s: %w", e.Path, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", e.Path, err)
	}
	return nil
}
