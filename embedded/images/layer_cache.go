package images

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
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
