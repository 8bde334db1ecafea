package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"

	"github.com/virtflow/virtflow/node/registrar"
)

// runRegistrar is the CSI node registrar sidecar, with node-driver-
// registrar's flag names where it has the same setting.
func runRegistrar(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("csi-node-registrar", flag.ContinueOnError)
	var cfg registrar.Config
	fs.StringVar(&cfg.DriverName, "driver-name", "kubevirt.io.hostpath-provisioner", "the CSI driver to register")
	fs.StringVar(&cfg.Endpoint, "kubelet-registration-path", "", "the driver's socket path on the host, as the kubelet reaches it")
	fs.StringVar(&cfg.RegistrationDir, "plugin-registration-path", "/registration", "the kubelet's plugins_registry directory, as mounted")
	health := fs.String("http-endpoint", "", "serve /healthz here (host:port); off when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *health != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
			if err := registrar.Healthy(cfg); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte("ok"))
		})
		stop, err := serveHealth(*health, mux)
		if err != nil {
			return err
		}
		defer stop()
	}
	fmt.Fprintf(out, "registering CSI driver %s (%s) in %s\n", cfg.DriverName, cfg.Endpoint, cfg.RegistrationDir)
	err := registrar.Run(ctx, cfg)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
