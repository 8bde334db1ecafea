// Package console is the `virtflow console` command: the web console's
// server on one address, its metrics on another, until the context ends.
package console

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/console/server"
	"github.com/virtflow/virtflow/console/server/upload"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/worker"
)

// Port is the console's default port.
const Port = 8443

// shutdownGrace is how long requests in flight may take to finish.
const shutdownGrace = 5 * time.Second

// options are the command's flags.
type options struct {
	listen, metricsListen       string
	tlsCert, tlsKey             string
	kubeconfig, apiserverCA     string
	temporalAddress, temporalNS string
	temporalUI                  string
	temporalTLS                 temporalclient.TLS
	sessionTTL                  time.Duration
	uploadProxyURL, uploadCA    string
	uploadInsecure              bool
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", fmt.Sprintf(":%d", Port), "address the console serves HTTPS on")
	fs.StringVar(&o.tlsCert, "tls-cert-file", "/etc/virtflow-console/tls/tls.crt", "the console's serving certificate (re-read at every handshake)")
	fs.StringVar(&o.tlsKey, "tls-private-key-file", "/etc/virtflow-console/tls/tls.key", "the key of --tls-cert-file")
	fs.StringVar(&o.metricsListen, "metrics-listen", ":"+strconv.Itoa(workloads.MetricsPort), "address of the Prometheus metrics; empty turns them off")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig locating the kube-apiserver (its credentials are never used); in a pod, $KUBERNETES_SERVICE_HOST and --apiserver-ca when empty")
	fs.StringVar(&o.apiserverCA, "apiserver-ca", inClusterCA, "CA bundle of the in-cluster kube-apiserver (the kube-root-ca.crt ConfigMap's ca.crt)")
	fs.StringVar(&o.temporalAddress, "temporal-address", "127.0.0.1:7233", "Temporal frontend host:port; empty turns the operations view off")
	fs.StringVar(&o.temporalNS, "temporal-namespace", worker.DefaultNamespace, "Temporal namespace of virtflow's workflows")
	o.temporalTLS.AddFlags(fs)
	fs.StringVar(&o.temporalUI, "temporal-ui", "", "Temporal Web UI base URL, for links to each operation (e.g. http://127.0.0.1:8233)")
	fs.DurationVar(&o.sessionTTL, "session-ttl", server.DefaultSessionTTL, "how long a login lasts")
	fs.StringVar(&o.uploadProxyURL, "upload-proxy-url", upload.DefaultProxyURL, "cdi-uploadproxy's URL, where browser uploads go")
	fs.StringVar(&o.uploadCA, "upload-proxy-ca", "", "CA bundle of cdi-uploadproxy (the cdi-uploadproxy-signer-bundle ConfigMap's ca-bundle.crt); when empty, CDIConfig's status.uploadProxyCA as the user may read it, else the system's roots")
	fs.BoolVar(&o.uploadInsecure, "upload-proxy-insecure-skip-verify", false, "trust any certificate cdi-uploadproxy shows: images and upload tokens then go to whoever answers at --upload-proxy-url")
	return o, fs.Parse(args)
}

// Main serves the console until ctx ends. The bundle is assets, nil until
// the command is given one: the page then says how to build it.
func Main(ctx context.Context, args []string, assets fs.FS) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	kube, err := apiserver(o)
	if err != nil {
		return err
	}
	cfg := server.Config{Kube: kube, TemporalNamespace: o.temporalNS, TemporalUI: o.temporalUI,
		Assets: assets, SessionTTL: o.sessionTTL, Log: log}
	if cfg.UploadProxy, err = uploadProxy(o); err != nil {
		return err
	}
	if o.temporalAddress != "" {
		tc, err := lazyTemporal(o)
		if err != nil {
			return err
		}
		defer tc.Close()
		cfg.Temporal = tc
	}
	s, err := server.New(cfg)
	if err != nil {
		return err
	}
	return serve(ctx, o, s, log)
}

// lazyTemporal connects on first use: the console serves VMs and disks
// while Temporal is still starting, and only its operations view waits.
func lazyTemporal(o options) (client.Client, error) {
	opts, err := o.temporalTLS.Options(o.temporalAddress, o.temporalNS)
	if err != nil {
		return nil, fmt.Errorf("configuring the temporal client for %s: %w", o.temporalAddress, err)
	}
	opts.Logger = sdklog.NewStructuredLogger(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	tc, err := client.NewLazyClient(opts)
	if err != nil {
		return nil, fmt.Errorf("configuring the temporal client for %s: %w", o.temporalAddress, err)
	}
	return tc, nil
}

// uploadProxy is cdi-uploadproxy as the flags describe it.
func uploadProxy(o options) (upload.Proxy, error) {
	p := upload.Proxy{URL: o.uploadProxyURL, InsecureSkipVerify: o.uploadInsecure}
	if o.uploadCA == "" {
		return p, nil
	}
	ca, err := os.ReadFile(o.uploadCA)
	if err != nil {
		return p, fmt.Errorf("reading cdi-uploadproxy's CA bundle: %w", err)
	}
	p.CA = ca
	return p, nil
}
