package process

import (
	"os"
	"path/filepath"
	"syscall"
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
	require.NoError(t, g.members[1].current.Exited(), "only the named process was stopped")
	require.NoError(t, g.Stop(time.Minute))
	require.Error(t, g.members[1].current.Exited())
}

func TestAProcessThatIgnoresSIGTERMIsKilledAfterTheGrace(t *testing.T) {
	g := Group{LogDir: t.TempDir()}
	require.NoError(t, g.Start("stubborn", "/bin/sh", []string{"-c", "trap '' TERM; sleep 600 & wait"}))
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, g.Stop(300*time.Millisecond))
	require.ErrorContains(t, g.Healthy(), "signal: killed")
}

func TestARestartingGroupStartsAKilledProcessAgainButNotAStoppedOne(t *testing.T) {
	g := Group{LogDir: t.TempDir(), Restart: true}
	require.NoError(t, g.Start("sleeper", "/bin/sleep", []string{"600"}))
	first := g.PID("sleeper")
	require.NotZero(t, first)
	require.NoError(t, syscall.Kill(first, syscall.SIGKILL))
	require.Eventually(t, func() bool {
		pid := g.PID("sleeper")
		return pid != 0 && pid != first
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, g.Healthy())
	log, err := os.ReadFile(filepath.Join(g.LogDir, "sleeper.log"))
	require.NoError(t, err)
	require.Contains(t, string(log), "virtflow: sleeper exited (signal: killed); starting it again")

	require.NoError(t, g.Stop(time.Minute))
	time.Sleep(3 * firstPause)
	require.Zero(t, g.PID("sleeper"), "a stopped process stays stopped")
}

func TestAProcessThatKeepsFailingIsReportedAsUnhealthy(t *testing.T) {
	defer func(p time.Duration) { firstPause = p }(firstPause)
	firstPause = 10 * time.Millisecond
	g := Group{LogDir: t.TempDir(), Restart: true}
	require.NoError(t, g.Start("failing", "/bin/sh", []string{"-c", "echo broken config; exit 3"}))
	require.Eventually(t, func() bool { return g.Healthy() != nil }, 20*time.Second, 20*time.Millisecond)
	require.ErrorContains(t, g.Healthy(), "failing keeps exiting (exit status 3)")
	require.ErrorContains(t, g.Healthy(), "broken config")
	require.NoError(t, g.Stop(time.Second))
}
