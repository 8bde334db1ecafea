package cli

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"

	"go.temporal.io/sdk/client"
	"k8s.io/client-go/tools/clientcmd"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/wire/launcherpod"
	"github.com/virtflow/virtflow/worker"
)

func runWorker(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the virtflow identity")
	address := fs.String("temporal-address", "127.0.0.1:7233", "Temporal frontend host:port")
	namespace := fs.String("temporal-namespace", worker.DefaultNamespace, "Temporal namespace")
	node := fs.String("node", "", "run the node-local worker of this node instead of the control worker")
	nodeIP := fs.String("node-ip", "127.0.0.1", "with --node: the address the node's upload servers listen on")
	hostRoot := fs.String("host-root", "/", "with --node: the prefix of the node's hostpath storage pools' paths")
	keyDir := fs.String("upload-key-dir", "", "with --node: the directory of cdi-apiserver's upload token verification key "+uploadtoken.PublicKeyFile)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	scheme, err := kubescheme.New()
	if err != nil {
		return err
	}
	kc, err := crclient.New(cfg, crclient.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("creating kubernetes client: %w", err)
	}
	tc, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace})
	if err != nil {
		return fmt.Errorf("connecting to temporal at %s: %w", *address, err)
	}
	defer tc.Close()
	w, queue := worker.NewControl(tc, kc, worker.WithDurableTasks(cfg)), worker.ControlTaskQueue
	if *node != "" {
		key := func() (ed25519.PublicKey, error) { return uploadtoken.LoadPublicKey(*keyDir) }
		w = worker.NewNode(tc, *node, *nodeIP, launcherpod.User, kc, worker.WithHostRoot(*hostRoot), worker.WithUploadKey(key))
		queue = worker.NodeTaskQueue(*node)
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("starting worker: %w", err)
	}
	fmt.Fprintf(out, "worker polling %s on %s\n", queue, *address)
	<-ctx.Done()
	w.Stop()
	return nil
}
