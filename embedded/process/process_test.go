package process

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Stopping twice must not wait for an exit already seen (it once did,
// forever).
func TestAStoppedProcessStaysStoppedAndReportsItsExit(t *testing.T) {
	g := Group{LogDir: t.TempDir()}
	require.NoError(t, g.Start("sleeper", "/bin/sleep", []string{"600"}))
	require.NoError(t, g.Start("other", "/bin/sleep", []string{"600"}))
	require.NoError(t, g.Healthy())

	done := make(chan error, 1)
	go func() {
		_ = g.Stop(time.Minute, "sleeper")
		done <- g.Stop(time.Minute, "sleeper")
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("stopping a stopped process hangs")
	}
	require.ErrorContains(t, g.Healthy(), "sleeper exited")
	require.NoError(t, g.procs[1].Exited(), "only the named process was stopped")
	require.NoError(t, g.Stop(time.Minute))
	require.Error(t, g.procs[1].Exited())
}

func TestAProcessThatIgnoresSIGTERMIsKilledAfterTheGrace(t *testing.T) {
	g := Group{LogDir: t.TempDir()}
	require.NoError(t, g.Start("stubborn", "/bin/sh", []string{"-c", "trap '' TERM; sleep 600 & wait"}))
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, g.Stop(300*time.Millisecond))
	require.ErrorContains(t, g.Healthy(), "signal: killed")
}
