package cli

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"

	"go.temporal.io/sdk/client"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/embedded/platform"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/wire/launcherpod"
	"github.com/virtflow/virtflow/worker"
)

// workerFlags are `virtflow worker`'s flags.
type workerFlags struct {
	kubeconfig, address, namespace, node, nodeIP, dataDir string
	hostRoot, keyDir                                      string
	tls                                                   temporalclient.TLS
}

func parseWorker(args []string) (workerFlags, error) {
	var f workerFlags
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the virtflow identity")
	fs.StringVar(&f.address, "temporal-address", "127.0.0.1:7233", "Temporal frontend host:port")
	fs.StringVar(&f.namespace, "temporal-namespace", worker.DefaultNamespace, "Temporal namespace")
	fs.StringVar(&f.node, "node", "", "run the node-local worker of this node instead of the control worker")
	fs.StringVar(&f.nodeIP, "node-ip", "127.0.0.1", "with --node: the address the node's upload servers listen on")
	fs.StringVar(&f.hostRoot, "host-root", "/", "with --node: the prefix of the node's hostpath storage pools' paths")
	fs.StringVar(&f.keyDir, "upload-key-dir", "", "with --node: the directory of cdi-apiserver's upload token verification key "+uploadtoken.PublicKeyFile)
	fs.StringVar(&f.dataDir, "data-dir", platform.DefaultDataDir(), "without --temporal-tls-*: dial as the admin of the `virtflow up` of this state directory")
	f.tls.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if !f.tls.Enabled() {
		// The embedded Temporal takes only mTLS: by default, the
		// admin's certificate `virtflow up` wrote.
		ep, err := platform.ReadEndpoints(f.dataDir)
		if err != nil {
			return f, fmt.Errorf("the embedded Temporal needs a client certificate (--temporal-tls-*): %w", err)
		}
		f.tls = ep.TemporalTLS()
	}
	return f, nil
}

func runWorker(ctx context.Context, args []string, out io.Writer) error {
	f, err := parseWorker(args)
	if err != nil {
		return err
	}
	cfg, kc, err := kubeClient(f.kubeconfig)
	if err != nil {
		return err
	}
	opts, err := f.tls.Options(f.address, f.namespace)
	if err != nil {
		return err
	}
	tc, err := client.Dial(opts)
	if err != nil {
		return fmt.Errorf("connecting to temporal at %s: %w", f.address, err)
	}
	defer tc.Close()
	w, queue := worker.NewControl(tc, kc, worker.WithDurableTasks(cfg)), worker.ControlTaskQueue
	if f.node != "" {
		key := func() (ed25519.PublicKey, error) { return uploadtoken.LoadPublicKey(f.keyDir) }
		w = worker.NewNode(tc, f.node, f.nodeIP, launcherpod.User, kc, worker.WithHostRoot(f.hostRoot), worker.WithUploadKey(key))
		queue = worker.NodeTaskQueue(f.node)
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("starting worker: %w", err)
	}
	fmt.Fprintf(out, "worker polling %s on %s\n", queue, f.address)
	<-ctx.Done()
	w.Stop()
	return nil
}

// kubeClient is a direct client of the kubeconfig's identity that knows
// every virtflow kind, with its REST config.
func kubeClient(kubeconfig string) (*rest.Config, crclient.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, nil, err
	}
	kc, err := crclient.New(cfg, crclient.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, fmt.Errorf("creating kubernetes client: %w", err)
	}
	return cfg, kc, nil
}
