// Package version is the build's version, in the shape upstream's
// components report it (kubevirt.io/client-go/version.Info). The build
// stamps it with -ldflags -X (hack/ldflags.sh); an unstamped build
// reports Base with the VCS facts Go recorded, if any.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Base is the release this tree builds towards.
const Base = "v0.1.0"

// Set at link time by hack/ldflags.sh.
var (
	gitVersion   = ""
	gitCommit    = ""
	gitTreeState = ""
	buildDate    = ""
)

// Info is upstream's version document, field for field.
type Info struct {
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// String is the version alone, as upstream's.
func (i Info) String() string { return i.GitVersion }

// Get returns this binary's version.
func Get() Info {
	i := Info{GitVersion: gitVersion, GitCommit: gitCommit, GitTreeState: gitTreeState, BuildDate: buildDate,
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH)}
	if i.GitVersion == "" {
		fromBuildInfo(&i)
	}
	return i
}

// fromBuildInfo fills an unstamped build's version from what the Go
// toolchain recorded (with -buildvcs), else the base version.
func fromBuildInfo(i *Info) {
	i.GitVersion, i.BuildDate = Base, "1970-01-01T00:00:00Z"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.GitCommit = s.Value
		case "vcs.time":
			i.BuildDate = s.Value
		case "vcs.modified":
			i.GitTreeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
		}
	}
	if len(i.GitCommit) >= 14 {
		i.GitVersion = Base + "-g" + i.GitCommit[:14]
	}
}
