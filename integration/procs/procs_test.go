package procs

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAChildIsListedUnderItsParentWithItsNameAndMemory(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	all := List()
	require.Contains(t, Children(all)[os.Getpid()], cmd.Process.Pid)
	for _, p := range all {
		if p.PID == cmd.Process.Pid {
			require.Equal(t, "sleep", p.Comm)
			require.Equal(t, os.Getpid(), p.Parent)
		}
	}
	require.Positive(t, RSSKiB(os.Getpid()))
	require.Zero(t, RSSKiB(-1))
}

func TestFindMatchesAProcessByItsCommandLine(t *testing.T) {
	cmd := exec.Command("sleep", "61")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	found := Find(func(pid int, cmdline string) bool { return pid == cmd.Process.Pid && cmdline == "sleep\x0061\x00" })
	require.Equal(t, cmd.Process.Pid, found)
	require.Zero(t, Find(func(int, string) bool { return false }))
}
