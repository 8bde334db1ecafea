// Package clidownload is hco's cli-download: it serves virtctl builds for
// linux, mac and windows on amd64 and arm64 at upstream's paths
// (/amd64/linux/virtctl.tar.gz, /amd64/mac/virtctl.zip,
// /arm64/windows/virtctl.zip, ...), packing each archive on first request.
package clidownload

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// Platform is one downloadable build.
type Platform struct {
	// Arch is amd64 or arm64; OS is linux, mac or windows, as in the URL.
	Arch, OS string
}

// Platforms are the builds served, in the order the index lists them.
var Platforms = []Platform{
	{"amd64", "linux"}, {"amd64", "mac"}, {"amd64", "windows"},
	{"arm64", "linux"}, {"arm64", "mac"}, {"arm64", "windows"},
}

// Path is the platform's download path.
func (p Platform) Path() string { return fmt.Sprintf("/%s/%s/%s", p.Arch, p.OS, p.archiveName()) }

func (p Platform) archiveName() string {
	if p.OS == "linux" {
		return "virtctl.tar.gz"
	}
	return "virtctl.zip"
}

func (p Platform) binaryName() string {
	if p.OS == "windows" {
		return "virtctl.exe"
	}
	return "virtctl"
}

// goos is the Go name of the OS, which hack/virtctl-builds.sh uses for its
// directories.
func (p Platform) goos() string {
	if p.OS == "mac" {
		return "darwin"
	}
	return p.OS
}

// Server serves the builds in Dir, laid out <arch>/<goos>/virtctl[.exe].
type Server struct {
	Dir string
	// ArchiveDir keeps the archives, packed on first request; Dir when
	// empty (an image's Dir is read-only).
	ArchiveDir string
	mu         sync.Mutex
}

// Handler routes the index and the archives.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	for _, p := range Platforms {
		mux.HandleFunc("GET "+p.Path(), func(w http.ResponseWriter, r *http.Request) { s.archive(w, r, p) })
	}
	return mux
}

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html><head><title>virtctl downloads</title></head><body>
<h1>virtctl</h1><p>The command line for virtual machines on this cluster.</p><ul>
{{range .}}<li><a href="{{.Path}}">virtctl for {{.OS}} {{.Arch}}</a></li>
{{end}}</ul></body></html>
`))

func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = indexPage.Execute(w, Platforms)
}

func (s *Server) archive(w http.ResponseWriter, r *http.Request, p Platform) {
	path, err := s.ensureArchive(p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Disposition", "attachment; filename="+p.archiveName())
	http.ServeFile(w, r, path)
}

// ensureArchive packs the platform's binary once and keeps the archive
// beside it.
func (s *Server) ensureArchive(p Platform) (string, error) {
	dir := filepath.Join(s.Dir, p.Arch, p.goos())
	packed := s.ArchiveDir
	if packed == "" {
		packed = s.Dir
	}
	out := filepath.Join(packed, p.Arch, p.goos(), p.archiveName())
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("creating the archive directory: %w", err)
	}
	bin := filepath.Join(dir, p.binaryName())
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("virtctl for %s %s was not built (run hack/virtctl-builds.sh): %w", p.OS, p.Arch, err)
	}
	if err := pack(bin, out+".partial", p); err != nil {
		return "", err
	}
	return out, os.Rename(out+".partial", out)
}

func pack(bin, out string, p Platform) error {
	src, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	defer f.Close()
	if p.OS == "linux" {
		err = packTarGz(f, src, st, p.binaryName())
	} else {
		err = packZip(f, src, st, p.binaryName())
	}
	if err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	return f.Close()
}

func packTarGz(w io.Writer, src io.Reader, st os.FileInfo, name string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := io.Copy(tw, src); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func packZip(w io.Writer, src io.Reader, st os.FileInfo, name string) error {
	zw := zip.NewWriter(w)
	h, err := zip.FileInfoHeader(st)
	if err != nil {
		return err
	}
	h.Name, h.Method = name, zip.Deflate
	h.SetMode(0o755)
	fw, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if _, err := io.Copy(fw, src); err != nil {
		return err
	}
	return zw.Close()
}
