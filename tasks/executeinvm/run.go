package executeinvm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/virtflow/virtflow/tasks/exitcode"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// timing holds the waits' intervals: upstream's, shortened in tests.
type timing struct {
	// vmi is how often the VMI is checked while it starts.
	vmi time.Duration
	// connection is how often the guest is tried until it answers.
	connection time.Duration
	// settle is the pause after the guest first answers, before the
	// script runs (sshd accepts a little before it serves).
	settle time.Duration
	// cleanup is how often a stopping or deleted VM is checked.
	cleanup time.Duration
}

var upstreamTiming = timing{vmi: 3 * time.Second, connection: 3 * time.Second, settle: 2 * time.Second, cleanup: time.Second}

// executor runs a script in a guest over one kind of connection.
type executor interface {
	// needsIP says whether the guest is reached at its pod network address.
	needsIP() bool
	// connect waits until the guest takes commands.
	connect(ctx context.Context, target vmTarget) error
	// execute runs script, writing its output to the log; a non-zero exit
	// status is an *ExitError.
	execute(ctx context.Context, script string) error
	// close ends the connection.
	close()
}

// ExitError is the non-zero exit status of the script in the guest; its
// message is upstream's.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// errCommandTimeout is upstream's message when the script outlives the
// timeout.
var errCommandTimeout = errors.New("command timed out")

// runner is the two Tasks' body; tests replace its parts.
type runner struct {
	secretDir   string
	timing      timing
	control     func(env stepenv.Env) (vmControl, error)
	newExecutor func(env stepenv.Env, c connection) executor
}

var defaultRunner = runner{secretDir: SecretDir, timing: upstreamTiming, control: newSubresources, newExecutor: newExecutor}

// run runs the script (starting the VM for it), then stops and deletes
// the VM as asked, also when the script failed or timed out.
func (r runner) run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	o, err := parseOptions(params, env.Namespace)
	if err != nil {
		return exitcode.With(err, exitInvalidArguments)
	}
	control, err := r.control(env)
	if err != nil {
		return exitcode.With(err, exitInitialization)
	}
	l := &vmLifecycle{env: env, control: control, timing: r.timing,
		target: vmTarget{namespace: o.vmNamespace, name: o.vmName}}
	var runErr error
	if o.script != "" {
		runErr = r.runScript(ctx, env, o, l)
	}
	code := exitActionFailed
	if c, coded := exitcode.Of(runErr); coded {
		code = c // the connection could not be set up
	}
	return exitcode.With(errors.Join(runErr, r.cleanup(ctx, o, l)), code)
}

// runScript starts the VM, connects and runs the script within the
// timeout.
func (r runner) runScript(ctx context.Context, env stepenv.Env, o options, l *vmLifecycle) error {
	data, err := readSecret(ctx, env, r.secretDir, o.secretName)
	if err != nil {
		return exitcode.With(err, exitInitialization)
	}
	conn, err := parseConnection(data)
	if err != nil {
		return exitcode.With(err, exitInitialization)
	}
	exec := r.newExecutor(env, conn)
	defer exec.close()
	l.needsIP = exec.needsIP()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	if err := l.ensureRunning(ctx); err != nil {
		return err
	}
	if err := exec.connect(ctx, l.target); err != nil {
		return err
	}
	stop := env.KeepAlive("running the script in "+o.vmName, r.timing.connection)
	err = exec.execute(ctx, o.script)
	stop()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errCommandTimeout
		}
		return err
	}
	return nil
}

// cleanup stops, then deletes, the VM as asked; it does not count against
// the timeout.
func (r runner) cleanup(ctx context.Context, o options, l *vmLifecycle) error {
	if o.stop {
		if err := l.ensureStopped(ctx); err != nil {
			return err
		}
	}
	if o.delete {
		return l.ensureDeleted(ctx)
	}
	return nil
}
