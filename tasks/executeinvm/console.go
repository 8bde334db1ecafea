package executeinvm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/virtctl"
)

// openConsole connects to a VMI's serial console through virt-api.
func openConsole(ctx context.Context, env stepenv.Env, namespace, name string) (io.ReadWriteCloser, error) {
	if env.Config == nil {
		return nil, errors.New("the console connection needs the API server's configuration")
	}
	return virtctl.OpenStream(ctx, env.Config, namespace, name, "console")
}

// consoleExecutor runs the script on the VMI's serial console.
type consoleExecutor struct {
	env     stepenv.Env
	timing  timing
	open    func(ctx context.Context, env stepenv.Env, namespace, name string) (io.ReadWriteCloser, error)
	stream  io.ReadWriteCloser
	session *consoleSession
}

func (e *consoleExecutor) needsIP() bool { return false }

func (e *consoleExecutor) close() {
	if e.stream != nil {
		e.stream.Close()
	}
	if e.session != nil {
		e.session.close()
	}
}

// connect opens the console (virt-api refuses until the launcher serves
// it) and waits for the shell.
func (e *consoleExecutor) connect(ctx context.Context, target vmTarget) error {
	var lastErr error
	err := poll(ctx, e.env, e.timing.connection, "connecting to the console of "+target.name, func() (bool, error) {
		stream, err := e.open(ctx, e.env, target.namespace, target.name)
		if err != nil {
			lastErr = err
			return false, nil
		}
		e.stream = stream
		return true, nil
	})
	if err != nil {
		if lastErr != nil && errors.Is(err, errWaitTimeout) {
			e.env.Logf("last console error: %v", lastErr)
		}
		return err
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("making the console markers: %w", err)
	}
	e.session = newConsoleSession(e.stream, e.env.Log, hex.EncodeToString(nonce), e.timing.connection)
	e.env.Logf("waiting for a shell on the console of %s/%s", target.namespace, target.name)
	if err := e.session.waitShell(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return errWaitTimeout
		}
		return fmt.Errorf("waiting for a shell on the console of %s: %w", target.name, err)
	}
	return nil
}

// execute runs the script in the shell.
func (e *consoleExecutor) execute(ctx context.Context, script string) error {
	if err := e.session.run(ctx, script); err != nil {
		var exit *ExitError
		if errors.As(err, &exit) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("running the script on the console: %w", err)
	}
	return nil
}
