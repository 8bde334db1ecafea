// Package virthandler is the virt-handler command, one per node from its
// DaemonSet: it hands the node's launcher pods their VMIs, reports their
// state, serves consoles to virt-api, and runs the node's Temporal worker
// for node-local disk work and the node steps of live migrations.
package virthandler

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/kube/mtls"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/wire/launcherpod"
	"github.com/virtflow/virtflow/worker"
)

type flags struct {
	kubeconfig, kubeletRoot, nodeDir string
	apiTLSDir                        string
	hostRoot, uploadKeyDir           string
	uploadTLSDir                     string
	migrationClientTLSDir            string
	temporal                         *manager.Temporal
}

// Main runs virt-handler until ctx ends.
func Main(ctx context.Context, args []string) error {
	var f flags
	fs := flag.NewFlagSet("virt-handler", flag.ContinueOnError)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig; the pod's service account when empty")
	fs.StringVar(&f.kubeletRoot, "kubelet-root", "/var/lib/kubelet", "the kubelet's root directory on this node")
	fs.StringVar(&f.nodeDir, "node-dir", "/var/lib/virtflow/nodes", "per-node state, in a directory named after the node")
	fs.StringVar(&f.apiTLSDir, "node-api-tls-dir", "", "tls.crt, tls.key and ca-bundle.crt of the node agent API, which takes only clients of that CA (virt-api)")
	fs.StringVar(&f.hostRoot, "host-root", "/", "prefix of the hostpath storage pools' paths: the node's disk work writes only volumes under it")
	fs.StringVar(&f.uploadKeyDir, "upload-key-dir", cdi.KeyDir,
		"directory of cdi-apiserver's upload token verification key "+uploadtoken.PublicKeyFile+"; the node takes no upload without it")
	fs.StringVar(&f.uploadTLSDir, "upload-tls-dir", uploadtoken.ServerCertDir,
		"tls.crt, tls.key and ca-bundle.crt of the node's upload servers, which take only clients of that CA (cdi-uploadproxy)")
	fs.StringVar(&f.migrationClientTLSDir, "migration-client-tls-dir", "",
		"tls.crt, tls.key and ca-bundle.crt of the agents' client certificate: a migration's source joins the target's ports with it; without it this node migrates nothing away")
	f.temporal = manager.TemporalFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if f.apiTLSDir == "" {
		return errors.New("virt-handler serves its API only over mutual TLS: --node-api-tls-dir is required")
	}
	node := os.Getenv(workloads.NodeNameEnv)
	if node == "" {
		return errors.New("virt-handler needs its node's name in " + workloads.NodeNameEnv)
	}
	return run(ctx, f, node)
}

func run(ctx context.Context, f flags, node string) error {
	mgr, err := manager.New(manager.Options{Kubeconfig: f.kubeconfig})
	if err != nil {
		return err
	}
	cfg := handler.Config{
		NodeName: node, NodeIP: manager.PodIP(), KubeletRoot: f.kubeletRoot,
		Dir: filepath.Join(f.nodeDir, node), Namespace: manager.Namespace(),
		UID: launcherpod.User, GID: launcherpod.User, DomainType: handler.DetectDomainType(),
		APITLS: tlsFiles(f.apiTLSDir),
	}
	if err := handler.Setup(mgr, cfg); err != nil {
		return err
	}
	tc, err := f.temporal.Dial()
	if err != nil {
		return err
	}
	defer tc.Close()
	direct, err := manager.Direct(mgr)
	if err != nil {
		return err
	}
	uploadKey := func() (ed25519.PublicKey, error) { return uploadtoken.LoadPublicKey(f.uploadKeyDir) }
	w := worker.NewNode(tc, node, cfg.NodeIP, cfg.UID, direct, worker.WithHostRoot(f.hostRoot), worker.WithUploadKey(uploadKey),
		worker.WithUploadTLS(tlsFiles(f.uploadTLSDir)))
	certs := handler.MigrationTLS{Server: cfg.APITLS}
	if f.migrationClientTLSDir != "" {
		certs.Client = tlsFiles(f.migrationClientTLSDir)
	}
	virt.RegisterNodeActivities(w, handler.NewMigrations(direct, cfg, certs, tc))
	if err := w.Start(); err != nil {
		return fmt.Errorf("starting node worker of %s: %w", node, err)
	}
	defer w.Stop()
	slog.Info("virt-handler starting", "node", node, "domainType", cfg.DomainType, "address", cfg.NodeIP)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running virt-handler: %w", err)
	}
	return nil
}

// tlsFiles are the pair and CA bundle a certificate Secret projects into
// dir.
func tlsFiles(dir string) *mtls.Files {
	return &mtls.Files{Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), CA: filepath.Join(dir, "ca-bundle.crt")}
}
