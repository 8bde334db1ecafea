package executeinvm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const ns = "tasks"

var fastTiming = timing{vmi: 10 * time.Millisecond, connection: 10 * time.Millisecond, cleanup: 10 * time.Millisecond}

// fakeControl plays virt-api and the VM controller: a start creates a
// running VMI on the pod network, a stop removes it.
type fakeControl struct {
	c            crclient.Client
	mu           sync.Mutex
	starts       int
	stops        int
	noStart      bool
	stopConflict bool
}

func (f *fakeControl) Start(ctx context.Context, namespace, name string) error {
	f.mu.Lock()
	f.starts++
	f.mu.Unlock()
	if f.noStart {
		return nil
	}
	return f.c.Create(ctx, runningVMI(namespace, name))
}

func (f *fakeControl) Stop(ctx context.Context, namespace, name string) error {
	f.mu.Lock()
	f.stops++
	f.mu.Unlock()
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := f.c.Delete(ctx, vmi); err != nil {
		return err
	}
	if f.stopConflict {
		return apierrors.NewConflict(schema.GroupResource{Group: "kubevirt.io", Resource: "virtualmachine"}, name, errors.New("VM is not running"))
	}
	return nil
}

func runningVMI(namespace, name string) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{Networks: []kubevirtv1.Network{
			{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running,
			Interfaces: []kubevirtv1.VirtualMachineInstanceNetworkInterface{{Name: "default", IP: "10.0.0.7"}}},
	}
}

// fakeExecutor records what it was asked to run.
type fakeExecutor struct {
	ssh     bool
	target  vmTarget
	scripts []string
	result  error
	hang    bool
}

func (f *fakeExecutor) needsIP() bool { return f.ssh }
func (f *fakeExecutor) close()        {}
func (f *fakeExecutor) connect(_ context.Context, target vmTarget) error {
	f.target = target
	return nil
}
func (f *fakeExecutor) execute(ctx context.Context, script string) error {
	f.scripts = append(f.scripts, script)
	if f.hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return f.result
}

type fixture struct {
	client  crclient.Client
	control *fakeControl
	exec    *fakeExecutor
	runner  runner
	env     stepenv.Env
	log     *bytes.Buffer
	conn    connection
}

// newFixture has a VM "vm" without an instance, and a console secret
// "conn" mounted.
func newFixture(t *testing.T, objs ...crclient.Object) *fixture {
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "vm"}}
	c := tasktest.BuilderWithoutFieldManagement(t).WithObjects(append(objs, vm)...).Build()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "type"), []byte("console"), 0o644))
	f := &fixture{client: c, control: &fakeControl{c: c}, exec: &fakeExecutor{}, log: &bytes.Buffer{}}
	f.env = stepenv.Env{Client: c, Namespace: ns, Results: &stepenv.Results{Values: map[string]string{}}, Log: f.log}
	f.runner = runner{secretDir: dir, timing: fastTiming,
		control:     func(stepenv.Env) (vmControl, error) { return f.control, nil },
		newExecutor: func(_ stepenv.Env, c connection) executor { f.conn = c; return f.exec }}
	return f
}

func (f *fixture) run(kv ...string) error {
	p := stepenv.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Strings[kv[i]] = kv[i+1]
	}
	return f.runner.run(context.Background(), f.env, p)
}

func (f *fixture) exists(obj crclient.Object) bool {
	err := f.client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "vm"}, obj)
	return err == nil
}

func TestRunStartsTheVMAndRunsTheCommand(t *testing.T) {
	f := newFixture(t)
	p := stepenv.Params{Strings: map[string]string{"vmName": "vm", "secretName": "conn"},
		Arrays: map[string][]string{"command": {"systemctl"}, "args": {"start", "postgresql.service"}}}
	require.NoError(t, f.runner.run(context.Background(), f.env, p))
	assert.Equal(t, 1, f.control.starts)
	assert.Equal(t, []string{"systemctl start postgresql.service"}, f.exec.scripts)
	assert.Equal(t, typeConsole, f.conn.kind)
	assert.Equal(t, vmTarget{namespace: ns, name: "vm"}, f.exec.target)
	assert.Zero(t, f.control.stops, "execute-in-vm leaves the VM running")
}

func TestRunUsesARunningVMAndItsAddress(t *testing.T) {
	f := newFixture(t, runningVMI(ns, "vm"))
	f.exec.ssh = true
	require.NoError(t, f.run("vmName", "vm", "secretName", "conn", "script", "echo hi"))
	assert.Zero(t, f.control.starts)
	assert.Equal(t, "10.0.0.7", f.exec.target.ip)
}

func TestRunNeedsAPodNetworkForSSH(t *testing.T) {
	vmi := runningVMI(ns, "vm")
	vmi.Spec.Networks = nil
	f := newFixture(t, vmi)
	f.exec.ssh = true
	assert.EqualError(t, f.run("vmName", "vm", "secretName", "conn", "script", "echo hi"),
		"ip address not found: pod network not found")
}

func TestRunReadsTheSecretFromTheAPIWithoutAMount(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "conn"},
		Data: map[string][]byte{"type": []byte("console")}}
	f := newFixture(t, secret)
	f.runner.secretDir = filepath.Join(t.TempDir(), "absent")
	require.NoError(t, f.run("vmName", "vm", "secretName", "conn", "script", "true"))
	assert.Equal(t, typeConsole, f.conn.kind)

	err := f.run("vmName", "vm", "secretName", "other", "script", "true")
	assert.EqualError(t, err, "secret does not exist at tasks/other")
}

func TestRunFailsWithTheExitStatusAndStillCleansUp(t *testing.T) {
	f := newFixture(t)
	f.exec.result = &ExitError{Code: 3}
	err := f.run("vmName", "vm", "secretName", "conn", "script", "exit 3", "stop", "true", "delete", "true")
	assert.EqualError(t, err, "exit status 3")
	var exit *ExitError
	assert.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, f.control.stops)
	assert.False(t, f.exists(&kubevirtv1.VirtualMachineInstance{}), "stopped")
	assert.False(t, f.exists(&kubevirtv1.VirtualMachine{}), "deleted")
}

func TestRunTimesOutTheCommand(t *testing.T) {
	f := newFixture(t)
	f.exec.hang = true
	err := f.run("vmName", "vm", "secretName", "conn", "script", "sleep 1000", "stop", "true", "timeout", "100ms")
	assert.EqualError(t, err, "command timed out")
	assert.False(t, f.exists(&kubevirtv1.VirtualMachineInstance{}), "stopped after the timeout")
}

func TestRunTimesOutWaitingForTheVMI(t *testing.T) {
	f := newFixture(t)
	f.control.noStart = true
	err := f.run("vmName", "vm", "secretName", "conn", "script", "true", "timeout", "100ms", "delete", "true")
	assert.EqualError(t, err, "timed out waiting for the condition")
	assert.Equal(t, 1, f.control.starts, "started once")
	assert.Empty(t, f.exec.scripts)
	assert.False(t, f.exists(&kubevirtv1.VirtualMachine{}), "deleted after the timeout")
}

func TestRunRestartsAFailedVMI(t *testing.T) {
	vmi := runningVMI(ns, "vm")
	vmi.Status.Phase = kubevirtv1.Failed
	f := newFixture(t, vmi)
	f.control.noStart = true
	go func() {
		time.Sleep(50 * time.Millisecond)
		vmi := &kubevirtv1.VirtualMachineInstance{}
		_ = f.client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "vm"}, vmi)
		vmi.Status.Phase = kubevirtv1.Running
		_ = f.client.Update(context.Background(), vmi)
	}()
	require.NoError(t, f.run("vmName", "vm", "secretName", "conn", "script", "true", "timeout", "5s"))
	assert.Equal(t, 1, f.control.starts)
}

func TestRunStopsOnly(t *testing.T) {
	f := newFixture(t, runningVMI(ns, "vm"))
	f.control.stopConflict = true
	require.NoError(t, f.run("vmName", "vm", "stop", "true"))
	assert.Equal(t, 1, f.control.stops)
	assert.Empty(t, f.exec.scripts)
	assert.True(t, f.exists(&kubevirtv1.VirtualMachine{}))
	assert.Contains(t, f.log.String(), "stopping VM tasks/vm")
}

func TestRunStopLeavesAFinishedVMI(t *testing.T) {
	vmi := runningVMI(ns, "vm")
	vmi.Status.Phase = kubevirtv1.Succeeded
	f := newFixture(t, vmi)
	require.NoError(t, f.run("vmName", "vm", "stop", "true", "delete", "true"))
	assert.Zero(t, f.control.stops)
	assert.False(t, f.exists(&kubevirtv1.VirtualMachine{}))
}

func TestRunDeletesAnAbsentVMQuietly(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.run("vmName", "other", "delete", "true"))
}

func TestRunChecksTheSecretBeforeTheVM(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.runner.secretDir, "type"), []byte("telnet"), 0o644))
	assert.EqualError(t, f.run("vmName", "vm", "secretName", "conn", "script", "true"), "telnet is invalid type")
	assert.Zero(t, f.control.starts)
}

func TestRunRejectsBadOptionsFirst(t *testing.T) {
	f := newFixture(t, runningVMI(ns, "vm"))
	assert.EqualError(t, f.run("vmName", "vm", "script", "true", "stop", "true"), "connection secret should not be empty")
	assert.Zero(t, f.control.stops, "nothing is cleaned up when the options are wrong")
}

func exitCode(t *testing.T, err error) int {
	var coded interface{ ExitCode() int }
	require.ErrorAs(t, err, &coded)
	return coded.ExitCode()
}

func TestRunExitCodesAreUpstreams(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, 255, exitCode(t, f.run("vmName", "vm")), "bad options")
	require.NoError(t, os.WriteFile(filepath.Join(f.runner.secretDir, "type"), []byte("telnet"), 0o644))
	assert.Equal(t, 254, exitCode(t, f.run("vmName", "vm", "secretName", "conn", "script", "true")), "bad secret")
	require.NoError(t, os.WriteFile(filepath.Join(f.runner.secretDir, "type"), []byte("console"), 0o644))
	f.exec.result = &ExitError{Code: 1}
	assert.Equal(t, 253, exitCode(t, f.run("vmName", "vm", "secretName", "conn", "script", "false")), "failed script")
}
