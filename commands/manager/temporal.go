package manager

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/virtflow/virtflow/worker"
)

// Temporal is where a component reaches Temporal.
type Temporal struct {
	Address, Namespace string
}

// TemporalFlags adds --temporal-address and --temporal-namespace to fs.
func TemporalFlags(fs *flag.FlagSet) *Temporal {
	t := &Temporal{}
	fs.StringVar(&t.Address, "temporal-address", "127.0.0.1:7233", "Temporal frontend host:port")
	fs.StringVar(&t.Namespace, "temporal-namespace", worker.DefaultNamespace, "Temporal namespace")
	return t
}

// Dial connects, logging the SDK's warnings and errors as JSON on stderr.
func (t *Temporal) Dial() (client.Client, error) {
	tc, err := client.Dial(client.Options{
		HostPort: t.Address, Namespace: t.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	})
	if err != nil {
		return nil, fmt.Errorf("connecting to temporal at %s: %w", t.Address, err)
	}
	return tc, nil
}
