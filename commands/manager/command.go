package manager

import (
	"context"
	"flag"
	"fmt"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Command is a component's command line: --kubeconfig always, the
// Temporal flags when it has a worker or starts workflows, and its own.
type Command struct {
	Name string
	// LeaderElectionID, when set, elects one active replica.
	LeaderElectionID string
	// Temporal adds --temporal-address, --temporal-namespace and the
	// --temporal-tls-* flags and connects before setup.
	Temporal bool
	// Flags registers the component's own flags.
	Flags func(fs *flag.FlagSet)
}

// Setup adds a component to its manager; tc is nil without Temporal.
type Setup func(mgr ctrl.Manager, tc client.Client) error

// Run parses args, builds the manager (and the Temporal client), lets
// setup add the component, and runs it until ctx ends.
func (c Command) Run(ctx context.Context, args []string, setup Setup) error {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	var temporal *Temporal
	if c.Temporal {
		temporal = TemporalFlags(fs)
	}
	if c.Flags != nil {
		c.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	mgr, err := New(Options{Kubeconfig: *kubeconfig, LeaderElectionID: c.LeaderElectionID})
	if err != nil {
		return err
	}
	var tc client.Client
	if temporal != nil {
		if tc, err = temporal.Dial(); err != nil {
			return err
		}
		defer tc.Close()
	}
	if err := setup(mgr, tc); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running %s: %w", c.Name, err)
	}
	return nil
}
