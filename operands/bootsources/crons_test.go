package bootsources

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

func cronNames(crons []cdiv1beta1.DataImportCron) []string {
	var out []string
	for _, c := range crons {
		out = append(out, c.Namespace+"/"+c.Name)
	}
	return out
}

func TestDataImportCronsFollowTakeOver(t *testing.T) {
	ssp := newSSP(nil,
		dict("fedora-image-cron", "", "fedora", nil),
		dict("centos-stream9-image-cron", "", "centos-stream9", nil),
		dict("my-cron", "", "mine", nil),
		dict("other-fedora", "other", "fedora", nil),
	)
	p := New(ssp, Options{Namespace: bootNS, DataSourceNames: []string{"fedora", "centos-stream9"}})
	all := []string{"other/other-fedora", bootNS + "/centos-stream9-image-cron", bootNS + "/fedora-image-cron", bootNS + "/my-cron"}
	cases := []struct {
		name      string
		takenOver map[string]bool
		want      []string
	}{
		{"all taken over", map[string]bool{"fedora": true, "centos-stream9": true}, all},
		{"a claim provided by hand keeps its cron out", map[string]bool{"fedora": false, "centos-stream9": true},
			[]string{"other/other-fedora", bootNS + "/centos-stream9-image-cron", bootNS + "/my-cron"}},
		{"undecided counts as declined", map[string]bool{"fedora": true},
			[]string{"other/other-fedora", bootNS + "/fedora-image-cron", bootNS + "/my-cron"}},
		{"custom and foreign-namespace crons stay regardless", nil,
			[]string{"other/other-fedora", bootNS + "/my-cron"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, cronNames(p.DataImportCrons(c.takenOver)))
		})
	}
	kept := p.DataImportCrons(map[string]bool{"fedora": true, "centos-stream9": true})
	kept[1].Labels["mutated"] = "yes"
	require.NotContains(t, p.Crons[1].Labels, "mutated", "the plan hands out copies")
}

func TestCronMustBeReplaced(t *testing.T) {
	base := New(newSSP(nil, dict("fedora-image-cron", "", "fedora", nil)), Options{Namespace: bootNS}).Crons[0]
	cases := []struct {
		name  string
		tweak func(c *cdiv1beta1.DataImportCron)
		want  bool
	}{
		{"same", func(*cdiv1beta1.DataImportCron) {}, false},
		{"labels differ only", func(c *cdiv1beta1.DataImportCron) { c.Labels = map[string]string{"x": "y"} }, false},
		{"schedule", func(c *cdiv1beta1.DataImportCron) { c.Spec.Schedule = "1 1 * * *" }, true},
		{"source", func(c *cdiv1beta1.DataImportCron) {
			url := "docker://mirror/fedora:1"
			c.Spec.Template.Spec.Source.Registry.URL = &url
		}, true},
	}
	for _, c := range cases {
		found := base.DeepCopy()
		c.tweak(found)
		require.Equal(t, c.want, CronMustBeReplaced(found, &base), c.name)
	}
}

func TestStaleDataImportCrons(t *testing.T) {
	p := New(newSSP(nil, dict("fedora-image-cron", "", "fedora", nil)), Options{Namespace: bootNS, DataSourceNames: []string{"fedora"}})
	kept := p.DataImportCrons(map[string]bool{"fedora": true})
	owned := func(ns, name string) cdiv1beta1.DataImportCron {
		c := cdiv1beta1.DataImportCron{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		p.owner.annotate(&c)
		return c
	}
	foreign := cdiv1beta1.DataImportCron{ObjectMeta: metav1.ObjectMeta{Namespace: bootNS, Name: "user-cron"}}
	existing := []cdiv1beta1.DataImportCron{owned(bootNS, "fedora-image-cron"), owned("other", "fedora-image-cron"), owned(bootNS, "centos-stream8-image-cron"), foreign}
	require.Equal(t, []string{"other/fedora-image-cron", bootNS + "/centos-stream8-image-cron"}, cronNames(p.StaleDataImportCrons(existing, kept)))
	require.Equal(t, []string{bootNS + "/fedora-image-cron", "other/fedora-image-cron", bootNS + "/centos-stream8-image-cron"},
		cronNames(p.StaleDataImportCrons(existing, nil)), "a declined cron is removed too")
}
