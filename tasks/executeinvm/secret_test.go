package executeinvm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

func TestParseConnectionType(t *testing.T) {
	c, err := parseConnection(map[string]string{"type": " console\n"})
	require.NoError(t, err)
	assert.Equal(t, typeConsole, c.kind)

	c, err = parseConnection(map[string]string{"ssh-privatekey": "KEY", "user": "fedora", "disable-strict-host-key-checking": "true"})
	require.NoError(t, err)
	assert.Equal(t, typeSSH, c.kind, "a private key means ssh")

	_, err = parseConnection(map[string]string{})
	assert.EqualError(t, err, "type secret attribute is required")
	_, err = parseConnection(map[string]string{"type": "rdp"})
	assert.EqualError(t, err, "rdp is invalid type")
}

func TestParseSSH(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"type": "ssh", "user": "fedora", "ssh-privatekey": "KEY", "host-public-key": "ssh-ed25519 AAAA"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	c, err := parseConnection(base())
	require.NoError(t, err)
	assert.Equal(t, sshAttributes{user: "fedora", privateKey: "KEY", hostPublicKey: "ssh-ed25519 AAAA", port: 22, strict: "yes"}, c.ssh)

	c, err = parseConnection(base("ssh-privatekey", " ", "ssh-private-key", "ALT", "host-public-key", "",
		"disable-strict-host-key-checking", "true", "additional-ssh-options", "-p 2222 -o ConnectTimeout=3 -C"))
	require.NoError(t, err)
	assert.Equal(t, sshAttributes{user: "fedora", privateKey: "ALT", port: 2222, strict: "no",
		ignored: []string{"-o", "ConnectTimeout=3", "-C"}}, c.ssh)

	c, err = parseConnection(base("additional-ssh-options", "-p2200 -oStrictHostKeyChecking=accept-new"))
	require.NoError(t, err)
	assert.Equal(t, 2200, c.ssh.port)
	assert.Equal(t, "accept-new", c.ssh.strict)

	c, err = parseConnection(base("disable-strict-host-key-checking", "true", "additional-ssh-options", "-o 'StrictHostKeyChecking yes'"))
	require.NoError(t, err)
	assert.Equal(t, "yes", c.ssh.strict, "the option overrides the secret")

	errs := map[string]map[string]string{
		"ssh-privatekey secret attribute is required":                                           base("ssh-privatekey", ""),
		"user secret attribute is required":                                                     base("user", ""),
		"host-public-key or disable-strict-host-key-checking=true secret attribute is required": base("host-public-key", " ", "disable-strict-host-key-checking", "TRUE\n"),
		"ssh option requires an argument -- p":                                                  base("additional-ssh-options", "-p"),
		"Bad port 'ssh'":                                                                        base("additional-ssh-options", "-p ssh"),
	}
	for want, data := range errs {
		_, err := parseConnection(data)
		assert.EqualError(t, err, want)
	}
	_, err = parseConnection(base("additional-ssh-options", "-o 'x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "additional-ssh-options: unbalanced quotes")
}

func TestReadSecretDir(t *testing.T) {
	dir := t.TempDir()
	// A secret volume's layout: keys are links into a timestamped dir.
	data := filepath.Join(dir, "..2024_01_01_00_00_00.1")
	require.NoError(t, os.Mkdir(data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "type"), []byte("ssh"), 0o644))
	require.NoError(t, os.Symlink(filepath.Base(data), filepath.Join(dir, "..data")))
	require.NoError(t, os.Symlink("..data/type", filepath.Join(dir, "type")))
	got, err := readSecret(context.Background(), stepenv.Env{}, dir, "s")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"type": "ssh"}, got)

	empty := t.TempDir()
	_, err = readSecret(context.Background(), stepenv.Env{}, empty, "s")
	assert.EqualError(t, err, "secret does not exist at "+empty, "no mount and no client")
}
