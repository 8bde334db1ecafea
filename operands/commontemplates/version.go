package commontemplates

import (
	"strconv"
	"strings"
)

// semver is a release version as SSP orders template versions: semantic
// versioning, read tolerantly ("v0.34", "v0.34.1" and " 0.34.1 " parse).
type semver struct {
	core [3]uint64
	pre  []string
}

// parseVersion reads a version the way SSP's semver.ParseTolerant does:
// surrounding spaces and a leading "v" are ignored, and a missing minor or
// patch counts as 0 unless a pre-release or build suffix follows, which
// makes the version malformed.
func parseVersion(s string) (semver, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, hasBuild := strings.Cut(s, "+") // build metadata does not order
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) > 3 || (len(parts) < 3 && (hasPre || hasBuild)) {
		return semver{}, false
	}
	var v semver
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return semver{}, false
		}
		v.core[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" {
				return semver{}, false
			}
		}
	}
	return v, true
}

// compare orders two versions: -1, 0 or 1. A pre-release orders before
// its release.
func (v semver) compare(w semver) int {
	for i := range v.core {
		if v.core[i] != w.core[i] {
			return cmp(v.core[i] < w.core[i])
		}
	}
	switch {
	case len(v.pre) == 0 && len(w.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(w.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(w.pre); i++ {
		if c := comparePre(v.pre[i], w.pre[i]); c != 0 {
			return c
		}
	}
	if len(v.pre) == len(w.pre) {
		return 0
	}
	return cmp(len(v.pre) < len(w.pre))
}

// comparePre orders pre-release identifiers: numbers numerically and
// before words, words by bytes.
func comparePre(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		if an == bn {
			return 0
		}
		return cmp(an < bn)
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// cmp is -1 when less, else 1.
func cmp(less bool) int {
	if less {
		return -1
	}
	return 1
}
