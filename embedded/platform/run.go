package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/commands/temporalclient"
)

// Endpoints is written to <data-dir>/endpoints.json for `virtflow status`,
// the CLI and the integration tests.
type Endpoints struct {
	Kubeconfig      string `json:"kubeconfig"`
	TemporalAddress string `json:"temporalAddress"`
	TemporalUI      string `json:"temporalUI"`
	// TemporalCA, TemporalCert and TemporalKey are the files of the
	// Temporal CA and the admin's client certificate and key: the
	// frontend takes only mTLS.
	TemporalCA   string `json:"temporalCA"`
	TemporalCert string `json:"temporalCert"`
	TemporalKey  string `json:"temporalKey"`
	// Console is the web console's URL, empty when it could not be
	// relayed.
	Console string `json:"console,omitempty"`
	// ConsoleCA is the CA file that issued the console's certificate.
	ConsoleCA string `json:"consoleCA,omitempty"`
	PID       int    `json:"pid"`
}

// TemporalTLS is how the admin dials the Temporal frontend.
func (ep Endpoints) TemporalTLS() temporalclient.TLS {
	return temporalclient.TLS{Cert: ep.TemporalCert, Key: ep.TemporalKey, CA: ep.TemporalCA}
}

// Run is `virtflow up`: start, report, wait for Ctrl-C, stop.
func Run(ctx context.Context, opts Options) error {
	started := time.Now()
	p, err := Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		p.say("stopping")
		if err := p.Stop(); err != nil {
			p.say("stop: " + err.Error())
		}
	}()
	admin := p.temporal.AdminTLS()
	ep := Endpoints{
		Kubeconfig: p.KubeconfigPath(), TemporalAddress: p.TemporalAddress(), TemporalUI: p.TemporalUI(), PID: os.Getpid(),
		TemporalCA: admin.CA, TemporalCert: admin.Cert, TemporalKey: admin.Key,
	}
	console, consoleErr := p.startConsoleRelay(ctx)
	ep.Console, ep.ConsoleCA = console, p.consoleCA
	if err := writeEndpoints(opts.DataDir, ep); err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "\nexport KUBECONFIG=%s\nTemporal Web UI: %s/namespaces/virtflow/workflows\n", ep.Kubeconfig, ep.TemporalUI)
	if consoleErr == nil {
		fmt.Fprintf(opts.Out, "Console: %s/ (its certificate's CA: %s; log in with the token of `kubectl -n %s create token %s`)\n", ep.Console, ep.ConsoleCA, Namespace, ConsoleAdmin)
	} else {
		p.say("the web console is not reachable: " + consoleErr.Error())
	}
	if u, err := p.CLIDownloadsURL(ctx); err == nil {
		fmt.Fprintf(opts.Out, "virtctl downloads: %s/\n", u)
	}
	fmt.Fprintf(opts.Out, "Logs: %s\n\n", opts.LogDir)
	if opts.CreateHyperConverged {
		if err := p.waitAvailable(ctx); err != nil {
			// Ctrl-C while waiting is an ordinary stop, not a failure.
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		p.say(fmt.Sprintf("HyperConverged %s/%s is Available (%s after start)", Namespace, HCName, time.Since(started).Round(100*time.Millisecond)))
	}
	p.say("virtflow is up; press Ctrl-C to stop")
	select {
	case <-ctx.Done():
	case err := <-p.watchHealth(ctx):
		return err
	}
	return nil
}

func (p *Platform) waitAvailable(ctx context.Context) error {
	c, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return err
	}
	last := ""
	for {
		hc := &hcov1beta1.HyperConverged{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: HCName}, hc); err == nil {
			cond := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionAvailable)
			if cond != nil && cond.Status == "True" {
				return p.waitAdmitting(ctx, c)
			}
			if cond != nil && cond.Message != last {
				last = cond.Message
				p.say("HyperConverged: " + cond.Message)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// watchHealth reports the first control-plane process that dies.
func (p *Platform) watchHealth(ctx context.Context) <-chan error {
	ch := make(chan error, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
			if err := p.cp.Healthy(); err != nil {
				ch <- err
				return
			}
		}
	}()
	return ch
}

func writeEndpoints(dataDir string, ep Endpoints) error {
	data, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding endpoints: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "endpoints.json"), data, 0o644); err != nil {
		return fmt.Errorf("writing endpoints: %w", err)
	}
	return nil
}

// ReadEndpoints reads what the last `virtflow up` wrote.
func ReadEndpoints(dataDir string) (Endpoints, error) {
	var ep Endpoints
	data, err := os.ReadFile(filepath.Join(dataDir, "endpoints.json"))
	if err != nil {
		return ep, fmt.Errorf("virtflow has not been started with data directory %s: %w", dataDir, err)
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		return ep, fmt.Errorf("reading %s: %w", filepath.Join(dataDir, "endpoints.json"), err)
	}
	return ep, nil
}
