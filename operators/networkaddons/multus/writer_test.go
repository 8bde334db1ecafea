package multus

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const master = `{"cniVersion":"1.0.0","name":"virtflow","plugins":[{"type":"bridge","bridge":"virtflow0"},{"type":"portmap","capabilities":{"portMappings":true}}]}`

type node struct {
	w                 Writer
	token, ca, master string
}

func newNode(t *testing.T) node {
	t.Helper()
	dir := t.TempDir()
	n := node{token: filepath.Join(dir, "token"), ca: filepath.Join(dir, "ca.crt"), master: filepath.Join(dir, "net.d", "10-virtflow.conflist")}
	require.NoError(t, os.MkdirAll(filepath.Dir(n.master), 0o755))
	require.NoError(t, os.WriteFile(n.master, []byte(master), 0o644))
	require.NoError(t, os.WriteFile(n.token, []byte("tok-1\n"), 0o600))
	require.NoError(t, os.WriteFile(n.ca, []byte("CA"), 0o600))
	n.w = Writer{Paths: Paths{ConfDir: filepath.Dir(n.master), BinDir: "/node/cni/bin"}, Server: "https://10.96.0.1:443", TokenFile: n.token, CAFile: n.ca}
	return n
}

func readConf(t *testing.T, p Paths) map[string]any {
	t.Helper()
	data, err := os.ReadFile(p.Conf())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func TestTheConfDelegatesToTheClusterNetwork(t *testing.T) {
	n := newNode(t)
	wrote, err := n.w.Sync()
	require.NoError(t, err)
	assert.True(t, wrote)
	m := readConf(t, n.w.Paths)
	assert.Equal(t, "multus", m["type"])
	assert.Equal(t, NetworkName, m["name"])
	assert.Equal(t, "1.0.0", m["cniVersion"], "the master's version")
	assert.Equal(t, n.w.Paths.Kubeconfig(), m["kubeconfig"])
	assert.Equal(t, "/node/cni/bin", m["binDir"])
	assert.Equal(t, map[string]any{"portMappings": true}, m["capabilities"], "port mappings still reach portmap")
	delegates := m["delegates"].([]any)
	require.Len(t, delegates, 1)
	assert.Equal(t, "virtflow", delegates[0].(map[string]any)["name"])
}

func TestTheKubeconfigCarriesTheTokenPrivately(t *testing.T) {
	n := newNode(t)
	_, err := n.w.Sync()
	require.NoError(t, err)
	data, err := os.ReadFile(n.w.Paths.Kubeconfig())
	require.NoError(t, err)
	assert.Contains(t, string(data), `token: "tok-1"`)
	assert.Contains(t, string(data), "server: https://10.96.0.1:443")
	assert.Contains(t, string(data), "certificate-authority-data: Q0E=")
	st, err := os.Stat(n.w.Paths.Kubeconfig())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the token is the account's credential")
}

func TestARotatedTokenIsRewrittenAndNothingElse(t *testing.T) {
	n := newNode(t)
	_, err := n.w.Sync()
	require.NoError(t, err)
	wrote, err := n.w.Sync()
	require.NoError(t, err)
	assert.False(t, wrote, "nothing changed, nothing written")
	require.NoError(t, os.WriteFile(n.token, []byte("tok-2"), 0o600))
	wrote, err = n.w.Sync()
	require.NoError(t, err)
	assert.True(t, wrote)
	data, err := os.ReadFile(n.w.Paths.Kubeconfig())
	require.NoError(t, err)
	assert.Contains(t, string(data), `token: "tok-2"`)
	assert.NotContains(t, string(data), "tok-1")
}

func TestAChangedMasterIsFollowed(t *testing.T) {
	n := newNode(t)
	_, err := n.w.Sync()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(n.master, []byte(`{"cniVersion":"1.1.0","name":"virtflow","plugins":[{"type":"bridge"}]}`), 0o644))
	wrote, err := n.w.Sync()
	require.NoError(t, err)
	assert.True(t, wrote)
	m := readConf(t, n.w.Paths)
	assert.Equal(t, "1.1.0", m["cniVersion"])
	assert.NotContains(t, m, "capabilities")
}

func TestTheMasterIsTheFirstOtherConfiguration(t *testing.T) {
	n := newNode(t)
	dir := n.w.Paths.ConfDir
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20-other.conf"), []byte(master), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "05-notes.txt"), []byte("x"), 0o644))
	_, err := n.w.Sync()
	require.NoError(t, err)
	got, err := n.w.Paths.MasterPath()
	require.NoError(t, err)
	assert.Equal(t, n.master, got, "00-multus.conf itself and non-configurations are skipped")
}

func TestNoMasterIsAnError(t *testing.T) {
	n := newNode(t)
	require.NoError(t, os.Remove(n.master))
	_, err := n.w.Sync()
	require.ErrorContains(t, err, "no CNI configuration to delegate to")
	_, err = os.Stat(n.w.Paths.Conf())
	assert.ErrorIs(t, err, os.ErrNotExist, "no configuration that delegates to nothing")
}

func TestAMasterWithoutVersionIsRefused(t *testing.T) {
	_, err := Conf([]byte(`{"name":"x","type":"bridge"}`), Paths{})
	require.ErrorContains(t, err, "no cniVersion")
}

func TestRunRemovesTheConfWhenItStops(t *testing.T) {
	n := newNode(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	synced := make(chan struct{}, 1)
	go func() {
		done <- n.w.Run(ctx, time.Hour, func(bool, error) { synced <- struct{}{} })
	}()
	<-synced
	_, err := os.Stat(n.w.Paths.Conf())
	require.NoError(t, err)
	cancel()
	require.NoError(t, <-done)
	_, err = os.Stat(n.w.Paths.Conf())
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(n.master)
	assert.NoError(t, err, "the cluster network's own configuration stays")
}
