package virtctl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// localUser makes the default username predictable.
func localUser(t *testing.T, name string) {
	t.Setenv("USER", name)
	t.Setenv("USERNAME", "")
	t.Setenv("LOGNAME", "")
}

func TestSSHArgvAsUpstream(t *testing.T) {
	localUser(t, "me")
	c := &command{namespace: "ns", program: "virtctl"}
	argv, err := c.sshArgv([]string{"jdoe@vmi/testvmi"})
	require.NoError(t, err)
	require.Equal(t, []string{"-o", "ProxyCommand=virtctl port-forward --stdio=true vmi/testvmi/ns 22", "jdoe@vmi.testvmi.ns"}, argv)

	argv, err = c.sshArgv([]string{"-l", "root", "VirtualMachines/web", "--known-hosts", "/dev/null"})
	require.NoError(t, err)
	require.Equal(t, []string{"-o", "ProxyCommand=virtctl port-forward --stdio=true vm/web/ns 22", "root@vm.web.ns"}, argv,
		"the kind is normalised and --known-hosts is not passed on, as upstream")
}

func TestSSHArgvWithEveryFlagKeepsUpstreamsOrder(t *testing.T) {
	localUser(t, "me")
	c := &command{namespace: "ns", program: "/usr/bin/virtctl", kubeconfig: "/home/me/my kube/config%1", as: "alice"}
	argv, err := c.sshArgv([]string{"-p", "2222", "-i", "/keys/id", "-t", "-o StrictHostKeyChecking=no",
		"--local-ssh-opts", "-v", "vm/testvm/other", "--command", "ls /"})
	require.NoError(t, err)
	require.Equal(t, []string{
		"-o", "ProxyCommand=/usr/bin/virtctl --kubeconfig '/home/me/my kube/config%%1' --as alice port-forward --stdio=true vm/testvm/other 2222",
		"-o StrictHostKeyChecking=no", "-v",
		"-i", "/keys/id",
		"me@vm.testvm.other", "ls /",
	}, argv)
}

func TestSSHArgvWithoutAnyUser(t *testing.T) {
	localUser(t, "")
	c := &command{namespace: "ns", program: "virtctl", kubeconfig: "kc"}
	argv, err := c.sshArgv([]string{"-n", "apps", "vmi/db", "-c", "uptime"})
	require.NoError(t, err)
	require.Equal(t, []string{"-o", "ProxyCommand=virtctl --kubeconfig kc port-forward --stdio=true vmi/db/apps 22", "vmi.db.apps", "uptime"}, argv)
}

func TestSSHRefusals(t *testing.T) {
	c := &command{namespace: "ns", program: "virtctl"}
	cases := map[string][]string{
		"accepts 1 arg(s), received 0":                       {"-p", "22"},
		"accepts 1 arg(s), received 2":                       {"vm/a", "vm/b"},
		"expected username before '@'":                       {"@vm/a"},
		"expected target after '@'":                          {"jdoe@"},
		"target must contain type and name separated by '/'": {"jdoe@a"},
		"unsupported resource type 'pod'":                    {"pod/a"},
		`invalid value "ssh" for flag -p: parse error`:       {"-p", "ssh", "vm/a"},
	}
	for want, args := range cases {
		_, err := c.sshArgv(args)
		require.EqualError(t, err, want, "args %q", args)
	}
}

func TestSCPArgvToAndFromTheVM(t *testing.T) {
	localUser(t, "me")
	c := &command{namespace: "ns", program: "virtctl"}
	argv, err := c.scpArgv([]string{"-r", "--preserve", "-i", "k", "./dir", "jdoe@vmi/testvmi:backup"})
	require.NoError(t, err)
	require.Equal(t, []string{"-o", "ProxyCommand=virtctl port-forward --stdio=true vmi/testvmi/ns 22",
		"-i", "k", "-r", "-p", "./dir", "jdoe@vmi.testvmi.ns:backup"}, argv)

	argv, err = c.scpArgv([]string{"--port", "2200", "-t", "-q", "vm/web/apps:/etc/hosts", "hosts"})
	require.NoError(t, err)
	require.Equal(t, []string{"-o", "ProxyCommand=virtctl port-forward --stdio=true vm/web/apps 2200",
		"-q", "me@vm.web.apps:/etc/hosts", "hosts"}, argv)
}

func TestSCPRefusals(t *testing.T) {
	c := &command{namespace: "ns", program: "virtctl"}
	cases := map[string][]string{
		"accepts 2 arg(s), received 1": {"vm/a:x"},
		`copying from a remote location to another remote location is not supported: "vm/a:x" to "vm/b:y"`: {"vm/a:x", "vm/b:y"},
		`none of the two provided locations seems to be a remote location: "a" to "b"`:                     {"a", "b"},
		"expected username before '@'":            {"@vm/a:x", "b"},
		"unsupported resource type 'pod'":         {"a", "pod/x:y"},
		"flag provided but not defined: -preserv": {"-preserv", "a", "vm/x:y"},
	}
	for want, args := range cases {
		_, err := c.scpArgv(args)
		require.EqualError(t, err, want, "args %q", args)
	}
}
