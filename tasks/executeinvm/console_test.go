package executeinvm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

func TestConsoleExecutor(t *testing.T) {
	tty := newShellTTY(t, 0)
	var log bytes.Buffer
	attempts := 0
	e := &consoleExecutor{env: stepenv.Env{Log: &log}, timing: fastTiming,
		open: func(_ context.Context, _ stepenv.Env, namespace, name string) (io.ReadWriteCloser, error) {
			assert.Equal(t, "ns/vm", namespace+"/"+name)
			if attempts++; attempts < 3 {
				return nil, errors.New("can't access VMI vm: not ready")
			}
			return tty, nil
		}}
	defer e.close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.connect(ctx, vmTarget{namespace: "ns", name: "vm"}))
	assert.Equal(t, 3, attempts, "opened again until virt-api let it")
	require.NoError(t, e.execute(ctx, "echo from the guest"))
	assert.Contains(t, log.String(), "waiting for a shell on the console of ns/vm\nfrom the guest\n")
	assert.EqualError(t, e.execute(ctx, "exit 2"), "exit status 2")
}

func TestConsoleExecutorTimesOut(t *testing.T) {
	var log bytes.Buffer
	e := &consoleExecutor{env: stepenv.Env{Log: &log}, timing: fastTiming,
		open: func(context.Context, stepenv.Env, string, string) (io.ReadWriteCloser, error) {
			return nil, errors.New("can't access VMI vm: not ready")
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Equal(t, errWaitTimeout, e.connect(ctx, vmTarget{namespace: "ns", name: "vm"}))
	assert.Contains(t, log.String(), "last console error: can't access VMI vm: not ready")

	tty := newShellTTY(t, time.Hour)
	e = &consoleExecutor{env: stepenv.Env{}, timing: fastTiming,
		open: func(context.Context, stepenv.Env, string, string) (io.ReadWriteCloser, error) { return tty, nil }}
	defer e.close()
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Equal(t, errWaitTimeout, e.connect(ctx, vmTarget{namespace: "ns", name: "vm"}), "no shell in time")
}
