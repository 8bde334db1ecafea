package crdgen

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/deepcopy"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
)

// OwnAPIPackages are virtflow's own API packages, whose deepcopy functions
// are generated here.
var OwnAPIPackages = []string{
	"github.com/virtflow/virtflow/api/hco/v1beta1",
	"github.com/virtflow/virtflow/api/networkaddonsoperator/v1",
	"github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1",
	"github.com/virtflow/virtflow/api/ipamclaims/v1alpha1",
}

// DeepCopyFile is the name of the generated deepcopy file in each package.
const DeepCopyFile = "zz_generated.deepcopy.go"

// DeepCopy returns, per package directory, the generated deepcopy file of
// every own API package, as controller-gen's object generator writes it.
func DeepCopy() (map[string][]byte, error) {
	var gen genall.Generator = deepcopy.Generator{}
	rt, err := genall.Generators{&gen}.ForRoots(OwnAPIPackages...)
	if err != nil {
		return nil, fmt.Errorf("loading API packages: %w", err)
	}
	out := &memoryOutput{files: map[string]*bytes.Buffer{}}
	rt.OutputRules = genall.OutputRules{Default: out}
	var errs strings.Builder
	rt.ErrorWriter = &errs
	if rt.Run() {
		return nil, fmt.Errorf("generating deepcopy functions: %s", errs.String())
	}
	files := map[string][]byte{}
	for dir, b := range out.files {
		files[dir] = b.Bytes()
	}
	return files, nil
}

// memoryOutput collects what a generator writes, by package directory.
type memoryOutput struct {
	files map[string]*bytes.Buffer
}

func (m *memoryOutput) Open(pkg *loader.Package, itemPath string) (io.WriteCloser, error) {
	if len(pkg.GoFiles) == 0 {
		return nil, fmt.Errorf("package %s has no files", pkg.PkgPath)
	}
	b := &bytes.Buffer{}
	m.files[filepath.Join(filepath.Dir(pkg.GoFiles[0]), itemPath)] = b
	return nopCloser{b}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
