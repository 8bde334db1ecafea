package storage

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// An upload without its DataVolume's token is 401, and not a byte of it
// reaches the disk: no token, a forged or expired one, or one issued for
// another tenant's DataVolume.
func TestUploadWithoutItsDataVolumesTokenIsRefusedAndWritesNothing(t *testing.T) {
	u, srv, disk, _ := newUploadServer(t, 8<<20)
	_, otherKey := uploadKeys(t)
	_, priv := uploadKeys(t)
	u.auth.key = priv.Public().(ed25519.PublicKey)
	expired, err := uploadtoken.Issue(priv, "tenant", "upload", time.Now().Add(-time.Hour), time.Minute)
	require.NoError(t, err)
	for name, token := range map[string]string{
		"no token":            "",
		"garbage":             "not-a-token",
		"another key's token": uploadToken(t, otherKey, "tenant", "upload"),
		"an expired token":    expired,
		"another DataVolume":  uploadToken(t, priv, "victim", "upload"),
		"another name":        uploadToken(t, priv, "tenant", "other"),
	} {
		require.Equal(t, http.StatusUnauthorized, post(t, srv.URL, token, []byte(strings.Repeat("x", 1<<20))), name)
		_, err := os.Stat(disk)
		require.ErrorIs(t, err, os.ErrNotExist, "%s: nothing was written", name)
		require.Zero(t, u.received.Load(), "%s: nothing was read", name)
	}
	require.Equal(t, http.StatusOK, post(t, srv.URL, uploadToken(t, priv, "tenant", "upload"), make([]byte, 1<<20)), "its own token")
	require.NoError(t, (<-u.done).err)
}

// ReceiveUpload serves the DataVolume the cluster names, in its own
// volume, announces itself to its workflow, and takes only that
// DataVolume's token.
func TestReceiveUploadServesItsDataVolumeOnly(t *testing.T) {
	cl := newCluster(t)
	dv, dir := cl.dataVolume("tenant", "upload", cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}})
	pub, priv := uploadKeys(t)
	a := cl.activities(cdi.UploadWorkflowID(string(dv.UID)))
	rec := &signals{}
	a.Signals, a.UploadKey = rec, func() (ed25519.PublicKey, error) { return pub, nil }
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	req := cdi.ImportRequest{Namespace: "tenant", Claim: "upload", Key: string(dv.UID), Size: 1 << 20}
	done := make(chan error, 1)
	go func() {
		_, err := env.ExecuteActivity(a.ReceiveUpload, req)
		done <- err
	}()
	var addr string
	require.Eventually(t, func() bool {
		for _, p := range rec.sent() {
			addr = p.UploadServer
		}
		return addr != ""
	}, 5*time.Second, 10*time.Millisecond, "the server reported its address")
	claim := &corev1.PersistentVolumeClaim{}
	require.NoError(t, a.Client.Get(context.Background(), types.NamespacedName{Namespace: "tenant", Name: "upload"}, claim))
	require.Equal(t, addr, claim.Annotations[cdi.AnnUploadServer], "noted on the claim for people to read")

	require.Equal(t, http.StatusUnauthorized, post(t, "http://"+addr, "", make([]byte, 1<<20)))
	require.Equal(t, http.StatusOK, post(t, "http://"+addr, uploadToken(t, priv, "tenant", "upload"), make([]byte, 1<<20)))
	require.NoError(t, <-done)
	st, err := os.Stat(filepath.Join(dir, cdi.DiskFileName))
	require.NoError(t, err)
	require.Equal(t, int64(1<<20), st.Size())
}

// Without the verification key a node takes no upload: the attempt fails
// (and is retried) saying why.
func TestReceiveUploadWithoutAKeyTakesNothing(t *testing.T) {
	cl := newCluster(t)
	dv, _ := cl.dataVolume("tenant", "upload", cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}})
	a := cl.activities(cdi.UploadWorkflowID(string(dv.UID)))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	req := cdi.ImportRequest{Namespace: "tenant", Claim: "upload", Key: string(dv.UID), Size: 1 << 20}
	_, err := env.ExecuteActivity(a.ReceiveUpload, req)
	require.ErrorContains(t, err, "this node has no upload token verification key")
	a.UploadKey = func() (ed25519.PublicKey, error) { return nil, errors.New("open /keys/id_ed25519.pub: no such file") }
	_, err = env.ExecuteActivity(a.ReceiveUpload, req)
	require.ErrorContains(t, err, "no such file")
}
