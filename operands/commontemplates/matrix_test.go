package commontemplates

import (
	"sort"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
)

// osCase is what upstream's v0.34.1 amd64 bundle holds for one OS family.
type osCase struct {
	os          string
	osIDs       []string
	osName      string
	workloads   []string
	flavors     []string
	defaultName string
	memory      map[string]string
	minMemory   int64
	dataSource  string
	nameFrom    string
	cloudUser   string
	displayName string
	icon        string
	storage     string
	windows     bool
}

var (
	linuxFlavors = []string{"tiny", "small", "medium", "large"}
	bigFlavors   = []string{"small", "medium", "large"}
	winFlavors   = []string{"medium", "large"}
	allWorkloads = []string{"server", "desktop", "highperformance"}
)

func rhelCase(major, tiny string, ids []string, min int64) osCase {
	return osCase{
		os: "rhel" + major, osIDs: ids, osName: "Red Hat Enterprise Linux " + major + ".0 or higher",
		workloads: allWorkloads, flavors: linuxFlavors, defaultName: "rhel" + major + "-server-small",
		memory:    map[string]string{"tiny": tiny, "small": "2Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: min, dataSource: "rhel" + major, nameFrom: "rhel" + major + "-[a-z0-9]{16}", cloudUser: "cloud-user",
		displayName: "Red Hat Enterprise Linux " + major + " VM", icon: "icon-rhel", storage: "30Gi",
	}
}

func winCase(os, id, name, workload, from string, min int64, storage string) osCase {
	return osCase{
		os: os, osIDs: []string{id}, osName: name, workloads: []string{workload, "highperformance"},
		flavors: winFlavors, defaultName: os + "-" + workload + "-medium",
		memory:    map[string]string{"medium": "4Gi", "large": "8Gi"},
		minMemory: min, dataSource: id, nameFrom: from + "-[a-z0-9]{6}",
		displayName: name + " VM", icon: "icon-windows", storage: storage, windows: true,
	}
}

// upstreamCases is the v0.34.1 matrix, OS by OS, with the osinfo data of
// that release.
var upstreamCases = []osCase{
	rhelCase("9", "1.5Gi", []string{"rhel9.0", "rhel9.1", "rhel9.2", "rhel9.3", "rhel9.4", "rhel9.5", "rhel9.6", "rhel9.7"}, 1610612736),
	rhelCase("8", "1.5Gi", []string{"rhel8.0", "rhel8.1", "rhel8.2", "rhel8.3", "rhel8.4", "rhel8.5", "rhel8.6", "rhel8.7", "rhel8.8", "rhel8.9", "rhel8.10"}, 1610612736),
	rhelCase("7", "1Gi", []string{"rhel7.0", "rhel7.1", "rhel7.2", "rhel7.3", "rhel7.4", "rhel7.5", "rhel7.6", "rhel7.7", "rhel7.8", "rhel7.9"}, 1073741824),
	{
		os: "centos-stream9", osIDs: []string{"centos-stream9"}, osName: "CentOS Stream 9 or higher",
		workloads: []string{"server", "desktop"}, flavors: linuxFlavors, defaultName: "centos-stream9-server-small",
		memory:    map[string]string{"tiny": "1.5Gi", "small": "2Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: 1610612736, dataSource: "centos-stream9", nameFrom: "centos-stream9-[a-z0-9]{16}", cloudUser: "centos",
		displayName: "CentOS Stream 9 VM", icon: "icon-centos", storage: "30Gi",
	},
	{
		os: "centos6", osIDs: []string{"centos6.0", "centos6.1", "centos6.2", "centos6.3", "centos6.4", "centos6.5", "centos6.6", "centos6.7", "centos6.8", "centos6.9", "centos6.10"},
		osName: "CentOS 6.0 or higher", workloads: []string{"server"}, flavors: linuxFlavors, defaultName: "centos6-server-small",
		memory:    map[string]string{"tiny": "1Gi", "small": "2Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: 536870912, dataSource: "centos6", nameFrom: "centos6-[a-z0-9]{16}", cloudUser: "centos",
		displayName: "CentOS 6 VM", icon: "icon-centos", storage: "30Gi",
	},
	{
		os: "fedora", osIDs: []string{"fedora40", "fedora41", "fedora42"}, osName: "Fedora Linux 40 or higher",
		workloads: allWorkloads, flavors: bigFlavors, defaultName: "fedora-server-small",
		memory:    map[string]string{"small": "2Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: 2147483648, dataSource: "fedora", nameFrom: "fedora-[a-z0-9]{16}", cloudUser: "fedora",
		displayName: "Fedora VM", icon: "icon-fedora", storage: "30Gi",
	},
	{
		os: "opensuse", osIDs: []string{"opensuse15.5", "opensuse15.6"}, osName: "openSUSE Leap 15.5 or higher",
		workloads: []string{"server"}, flavors: linuxFlavors, defaultName: "opensuse-server-small",
		memory:    map[string]string{"tiny": "1Gi", "small": "2Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: 1073741824, dataSource: "opensuse", nameFrom: "opensuse-[a-z0-9]{16}", cloudUser: "opensuse",
		displayName: "openSUSE Leap 15.5+ VM", icon: "icon-opensuse", storage: "30Gi",
	},
	{
		os: "ubuntu", osIDs: []string{"ubuntu16.04", "ubuntu18.04", "ubuntu20.04", "ubuntu22.04", "ubuntu24.04", "ubuntu25.04"},
		osName: "Ubuntu 16.04 or higher", workloads: []string{"server", "desktop"}, flavors: bigFlavors, defaultName: "ubuntu-server-small",
		memory:    map[string]string{"small": "3Gi", "medium": "4Gi", "large": "8Gi"},
		minMemory: 2147483648, dataSource: "ubuntu", nameFrom: "ubuntu-[a-z0-9]{16}", cloudUser: "ubuntu",
		displayName: "Ubuntu 16.04+ VM", icon: "icon-ubuntu", storage: "30Gi",
	},
	winCase("windows10", "win10", "Microsoft Windows 10", "desktop", "windows10", 2147483648, "60Gi"),
	winCase("windows11", "win11", "Microsoft Windows 11", "desktop", "windows11", 4294967296, "64Gi"),
	winCase("windows2k16", "win2k16", "Microsoft Windows Server 2016", "server", "windows2016", 536870912, "60Gi"),
	winCase("windows2k19", "win2k19", "Microsoft Windows Server 2019", "server", "windows2019", 536870912, "60Gi"),
	winCase("windows2k22", "win2k22", "Microsoft Windows Server 2022", "server", "windows2022", 536870912, "60Gi"),
	winCase("windows2k25", "win2k25", "Microsoft Windows Server 2025", "server", "windows2025", 536870912, "64Gi"),
}

// testGuestCase is virtflow's own family.
var testGuestCase = osCase{
	os: "virtflow-test-guest", osIDs: []string{"virtflow-test-guest"}, osName: "Virtflow Test Guest",
	workloads: []string{"server"}, flavors: []string{"tiny", "small"}, defaultName: "virtflow-test-guest-server-small",
	memory:    map[string]string{"tiny": "256Mi", "small": "512Mi"},
	minMemory: 268435456, dataSource: "virtflow-test-guest", nameFrom: "virtflow-test-guest-[a-z0-9]{16}",
	displayName: "Virtflow Test Guest VM", icon: "icon-linux", storage: "64Mi",
}

func allCases() []osCase { return append(append([]osCase{}, upstreamCases...), testGuestCase) }

// expected is one template the matrix calls for.
type expected struct {
	c        osCase
	workload string
	flavor   string
}

func (e expected) name() string { return e.c.os + "-" + e.workload + "-" + e.flavor }

func expectedTemplates(cases []osCase) map[string]expected {
	out := map[string]expected{}
	for _, c := range cases {
		for _, w := range c.workloads {
			for _, f := range c.flavors {
				e := expected{c: c, workload: w, flavor: f}
				out[e.name()] = e
			}
		}
	}
	return out
}

func byName(ts []templatev1.Template) map[string]templatev1.Template {
	out := map[string]templatev1.Template{}
	for _, t := range ts {
		out[t.Name] = t
	}
	return out
}

// TestTheMatrixIsUpstreamsPlusTheTestGuest checks the set of names:
// upstream's 91 plus the test guest's 2, and nothing upstream leaves out.
func TestTheMatrixIsUpstreamsPlusTheTestGuest(t *testing.T) {
	require.Len(t, expectedTemplates(upstreamCases), 91, "upstream's amd64 bundle of v0.34.1 holds 91 templates")
	ts := Templates(Options{})
	require.Len(t, ts, 93)
	want := expectedTemplates(allCases())
	got := byName(ts)
	require.Len(t, got, len(ts), "names are unique")
	for name := range want {
		require.Contains(t, got, name)
	}
	for _, name := range []string{
		"centos-stream9-server-small", "fedora-desktop-large", "rhel9-highperformance-medium",
		"windows11-desktop-medium", "windows2k25-highperformance-large", "virtflow-test-guest-server-tiny",
	} {
		require.Contains(t, got, name)
	}
	for _, name := range []string{"fedora-server-tiny", "ubuntu-server-tiny", "windows10-desktop-small", "windows2k19-desktop-medium", "centos-stream9-highperformance-small"} {
		require.NotContains(t, got, name, "upstream does not ship it")
	}
}

// TestTemplatesComeInAStableOrder matters because the operator compares
// what it applies between reconciles.
func TestTemplatesComeInAStableOrder(t *testing.T) {
	first, second := Templates(Options{}), Templates(Options{})
	names := make([]string, len(first))
	for i := range first {
		names[i] = first[i].Name
		require.Equal(t, first[i], second[i])
	}
	require.True(t, sort.StringsAreSorted(names))
}

// TestEveryTemplateCarriesUpstreamsLabels checks every label of every
// template, exactly.
func TestEveryTemplateCarriesUpstreamsLabels(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		l := got[name].Labels
		want := map[string]string{
			"workload.template.kubevirt.io/" + e.workload: "true",
			"flavor.template.kubevirt.io/" + e.flavor:     "true",
			"template.kubevirt.io/type":                   "base",
			"template.kubevirt.io/version":                "v0.34.1",
			"template.kubevirt.io/architecture":           "amd64",
			"app.kubernetes.io/name":                      "common-templates",
			"app.kubernetes.io/component":                 "templating",
			"app.kubernetes.io/managed-by":                "ssp-operator",
		}
		for _, id := range e.c.osIDs {
			want["os.template.kubevirt.io/"+id] = "true"
		}
		if name == e.c.defaultName {
			want["template.kubevirt.io/default-os-variant"] = "true"
		}
		require.Equal(t, want, l, name)
	}
}

// TestEachOSHasExactlyOneDefaultVariant matters because the console
// preselects the default variant of an OS.
func TestEachOSHasExactlyOneDefaultVariant(t *testing.T) {
	defaults := map[string][]string{}
	for _, tp := range Templates(Options{}) {
		if tp.Labels[LabelDefaultOSVariant] == "true" {
			os := tp.Annotations[AnnotationDisplayName]
			defaults[os] = append(defaults[os], tp.Name)
		}
	}
	require.Len(t, defaults, len(allCases()))
	for os, names := range defaults {
		require.Len(t, names, 1, os)
	}
}
