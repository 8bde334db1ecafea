package images

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// compressedTar is file's gzip form, kept beside it as file.gz and made
// once: base tarballs are hundreds of megabytes, and compressing them on
// every start cost seconds. Where the cache cannot be written, file itself
// is returned and compressed in memory as before.
func compressedTar(file string) string {
	src, err := os.Stat(file)
	if err != nil {
		return file
	}
	gz := file + ".gz"
	if st, err := os.Stat(gz); err == nil && !st.ModTime().Before(src.ModTime()) {
		return gz
	}
	if err := writeGzip(file, gz); err != nil {
		return file
	}
	return gz
}

// writeGzip compresses src into dst, atomically.
func writeGzip(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	partial := dst + ".partial"
	out, err := os.Create(partial)
	if err != nil {
		return err
	}
	defer os.Remove(partial)
	zw, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		out.Close()
		return err
	}
	if _, err := io.Copy(zw, in); err != nil {
		out.Close()
		return fmt.Errorf("compressing %s: %w", src, err)
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(partial, dst)
}

// WriteLayerTar writes entries, with their parent directories, as an
// uncompressed layer tarball at file (atomically), to be given as a base
// tarball: a big layer that seldom changes is then compressed once and
// cached rather than rebuilt with every image.
func WriteLayerTar(file string, entries []Entry) error {
	rc, err := layerTar(entries)
	if err != nil {
		return err
	}
	defer rc.Close()
	partial := file + ".partial"
	out, err := os.Create(partial)
	if err != nil {
		return fmt.Errorf("creating %s: %w", partial, err)
	}
	defer os.Remove(partial)
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", partial, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(partial, file)
}

// cacheAge is how long a cached layer nobody used is kept.
const cacheAge = 24 * time.Hour

var pruneOnce sync.Once

// cachedLayer is entries' layer, compressed, in dir: written when
// missing (the uncompressed tarball only while compressing). Using it marks
// it as used; layers unused for a day are removed, once per process.
func cachedLayer(dir string, entries []Entry) (string, error) {
	key, err := layerKey(entries)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pruneOnce.Do(func() { prune(dir) })
	gz := filepath.Join(dir, "layer-"+key+".tar.gz")
	if _, err := os.Stat(gz); err == nil {
		now := time.Now()
		_ = os.Chtimes(gz, now, now)
		return gz, nil
	}
	tarFile := strings.TrimSuffix(gz, ".gz")
	defer os.Remove(tarFile)
	if err := WriteLayerTar(tarFile, entries); err != nil {
		return "", err
	}
	return gz, writeGzip(tarFile, gz)
}

// layerKey identifies a layer by its entries and their content, so that
// the same binary built again finds its layer.
func layerKey(entries []Entry) (string, error) {
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%o\x00%s\x00%t\x00%x\x00", e.Path, e.Mode, e.Link, e.Dir, sha256.Sum256(e.Data))
		if e.Source != "" {
			if err := hashFile(h, e.Source); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func hashFile(w io.Writer, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// prune removes cached layers that were not used for cacheAge.
func prune(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && strings.HasPrefix(e.Name(), "layer-") && time.Since(info.ModTime()) > cacheAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
