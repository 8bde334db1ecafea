package manager

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/worker"
)

// Temporal is where a component reaches Temporal and how it proves who it
// is.
type Temporal struct {
	Address, Namespace string
	// TLS is the component's client certificate; plaintext when unset.
	TLS temporalclient.TLS
}

// TemporalFlags adds --temporal-address, --temporal-namespace and the
// --temporal-tls-* flags to fs.
func TemporalFlags(fs *flag.FlagSet) *Temporal {
	t := &Temporal{}
	fs.StringVar(&t.Address, "temporal-address", "127.0.0.1:7233", "Temporal frontend host:port")
	fs.StringVar(&t.Namespace, "temporal-namespace", worker.DefaultNamespace, "Temporal namespace")
	t.TLS.AddFlags(fs)
	return t
}

// Options are the client options, logging the SDK's warnings and errors
// as JSON on stderr.
func (t *Temporal) Options() (client.Options, error) {
	opts, err := t.TLS.Options(t.Address, t.Namespace)
	if err != nil {
		return opts, fmt.Errorf("configuring the temporal client for %s: %w", t.Address, err)
	}
	opts.Logger = sdklog.NewStructuredLogger(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	return opts, nil
}

// Dial connects.
func (t *Temporal) Dial() (client.Client, error) {
	opts, err := t.Options()
	if err != nil {
		return nil, err
	}
	tc, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to temporal at %s: %w", t.Address, err)
	}
	return tc, nil
}
