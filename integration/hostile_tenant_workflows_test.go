//go:build integration

package integration

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	sspc "github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/worker"
)

// TestAHostileTenantCannotReachAnotherTenantsDisk: a namespace editor
// points their upload at another tenant's upload server by the claim's
// annotation, posts to that server directly, and (as a caller who got
// through to Temporal would) starts a clone of the other tenant's disk
// into their own claim. The other tenant's disks are unchanged, and the
// attacker's claims get nothing of theirs.
func TestAHostileTenantCannotReachAnotherTenantsDisk(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	victim := n.space(t)
	dir := testImages(t)
	srv := serveImages(t, dir)
	require.NoError(t, victim.c.Create(ctx, victim.importDV("secret", srv.url+"/image-a", "64Mi", true)))
	require.NoError(t, victim.c.Create(ctx, victim.uploadDV("theirs", "64Mi")))
	victim.waitDVPhase("secret", cdiv1.Succeeded, 2*time.Minute)
	victim.waitDVPhase("theirs", cdiv1.UploadReady, time.Minute)
	secretDigest := fileDigest(t, victim.diskOf("secret"))
	theirServer := uploadServerOf(t, victim, "theirs")

	tn := newTenant(t, n)
	attacker := &space{t: t, c: tn.c, ns: tn.ns}
	// The attacker's namespace as the admin sees it: volumes are not a
	// namespace editor's to read.
	inspect := &space{t: t, c: n.c, ns: tn.ns}
	require.NoError(t, tn.c.Create(ctx, attacker.uploadDV("mine", "64Mi")))
	require.NoError(t, tn.c.Create(ctx, attacker.uploadDV("loot", "64Mi")))
	attacker.waitDVPhase("mine", cdiv1.UploadReady, time.Minute)
	attacker.waitDVPhase("loot", cdiv1.UploadReady, time.Minute)
	// The attacker's image is random data of its own, nothing like the
	// victim's.
	own := testImages(t)
	image, err := os.ReadFile(filepath.Join(own, "disk.qcow2"))
	require.NoError(t, err)
	token := uploadToken(t, tn.cfg, tn.ns, "mine")

	t.Run("posts to the other tenant's upload server", func(t *testing.T) {
		// Only cdi-uploadproxy's client certificate gets through: neither
		// plain HTTP nor a certificate of another CA, even with a token.
		for scheme, certs := range map[string][]tls.Certificate{"http": nil, "https": {selfSigned(t, "cdi-uploadproxy")}} {
			req, err := http.NewRequest(http.MethodPost, scheme+"://"+theirServer+cdic.UploadPath, strings.NewReader("forged"))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, Certificates: certs}}} //nolint:gosec
			resp, err := hc.Do(req)
			requireRefusedAtTLS(t, scheme, resp, err)
		}
	})
	t.Run("points the upload at the other tenant's server", func(t *testing.T) {
		pvc := &corev1.PersistentVolumeClaim{}
		require.NoError(t, tn.c.Get(ctx, attacker.key("mine"), pvc))
		pvc.Annotations[cdic.AnnUploadServer] = theirServer
		require.NoError(t, tn.c.Update(ctx, pvc), "a namespace editor may write the annotation")
		code, msg := postUpload(t, uploadProxyURL(t, tn.c), token, image)
		require.Equal(t, http.StatusOK, code, msg)
		attacker.waitDVPhase("mine", cdiv1.Succeeded, time.Minute)
		require.Equal(t, referenceDigest(t, filepath.Join(own, "disk.qcow2"), 64<<20), fileDigest(t, inspect.diskOf("mine")), "the upload landed in the attacker's own disk")
		require.Equal(t, cdiv1.UploadReady, victim.getDV("theirs").Status.Phase, "the other tenant's upload is untouched")
	})
	t.Run("starts a clone of the other tenant's disk through Temporal", func(t *testing.T) {
		forgedClone(t, n, inspect, victim)
	})
	require.Equal(t, secretDigest, fileDigest(t, victim.diskOf("secret")), "the other tenant's disk is unchanged")
}

// uploadServerOf is the address the upload server of a DataVolume noted
// on its claim for people to read.
func uploadServerOf(t *testing.T, s *space, dv string) string {
	t.Helper()
	pvc := &corev1.PersistentVolumeClaim{}
	require.Eventually(t, func() bool {
		return s.c.Get(context.Background(), s.key(dv), pvc) == nil && pvc.Annotations[cdic.AnnUploadServer] != ""
	}, time.Minute, 200*time.Millisecond, "the upload server of %s noted its address", dv)
	return pvc.Annotations[cdic.AnnUploadServer]
}

// forgedClone starts, in the attacker's claim's own workflow ID, a clone
// whose request names the victim's disk as its source: the node refuses
// it, and the attacker's disk holds nothing of the victim's.
func forgedClone(t *testing.T, n *upRun, attacker, victim *space) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	loot := attacker.getDV("loot")
	lootDir, secretDir := filepath.Dir(attacker.diskOf("loot")), filepath.Dir(victim.diskOf("secret"))
	in := cdic.CloneInput{DataVolume: attacker.ns + "/loot", Node: platform.NodeName, Request: cdic.CloneRequest{
		SourceDir: secretDir, VolumeDir: lootDir, Size: 64 << 20, Key: string(loot.UID), Namespace: attacker.ns, Claim: "loot",
	}}
	run, err := n.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: cdic.CloneWorkflowID(string(loot.UID)), TaskQueue: worker.ControlTaskQueue},
		cdic.CloneWorkflowName, in)
	require.NoError(t, err)
	requireRefusal(t, run.Get(ctx, nil), cdic.ErrTypeVolumeMismatch, cdic.ErrTypeCloneNotAuthorized)
	// The attacker's claim was never filled: no disk at all, or not the
	// victim's.
	if loot := attacker.diskOf("loot"); fileExists(loot) {
		require.NotEqual(t, fileDigest(t, victim.diskOf("secret")), fileDigest(t, loot), "nothing of the victim's disk reached the attacker's")
	}
}

// forgedDurableTask starts a durable task naming a powerful ServiceAccount
// and no CustomRun of its own: the activity refuses it, and the VM it
// would have created does not exist.
func forgedDurableTask(t *testing.T, n *upRun) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vm := `{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","metadata":{"name":"hijacked"},"spec":{"runStrategy":"Halted","template":{"spec":{"domain":{"devices":{}}}}}}`
	req := sspc.TaskRequest{Task: "create-vm-from-manifest", Namespace: platform.Namespace, ServiceAccount: platform.ConsoleAdmin,
		Params: sspc.Params{Strings: map[string]string{"manifest": vm}}, CustomRun: "none", CustomRunUID: "forged"}
	run, err := n.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: sspc.TaskWorkflowID("forged-" + time.Now().Format("150405.000")), TaskQueue: worker.ControlTaskQueue},
		sspc.RunTektonTaskWorkflowName, req)
	require.NoError(t, err)
	requireRefusal(t, run.Get(ctx, nil), sspc.ErrTypeCustomRunMismatch)
	got := &kubevirtv1.VirtualMachine{}
	err = n.c.Get(context.Background(), types.NamespacedName{Namespace: platform.Namespace, Name: "hijacked"}, got)
	require.True(t, apierrors.IsNotFound(err), "no VM was created as %s: %v", platform.ConsoleAdmin, err)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// requireRefusal: the workflow failed on an activity's non-retryable
// refusal of one of the given types, not on anything else.
func requireRefusal(t *testing.T, err error, types ...string) {
	t.Helper()
	require.Error(t, err, "the forged request is refused")
	var refused *temporal.ApplicationError
	require.ErrorAs(t, err, &refused)
	require.Contains(t, types, refused.Type(), "%v", err)
	require.True(t, refused.NonRetryable(), "refused for good, not retried")
}
