package waitforvmistatus

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

func TestMain(m *testing.M) {
	pollInterval = 5 * time.Millisecond
	m.Run()
}

// testEnv is a task environment on a fake cluster.
type testEnv struct {
	stepenv.Env
	client  crclient.WithWatch
	alive   tasktest.Progress
	started chan struct{}
	once    sync.Once
}

func newTestEnv(t *testing.T, objs ...crclient.Object) *testEnv {
	t.Helper()
	c := tasktest.BuilderWithoutFieldManagement(t).WithObjects(objs...).Build()
	te := &testEnv{client: c, started: make(chan struct{})}
	te.Env = stepenv.Env{Client: c, Namespace: "active", Results: &stepenv.Results{Values: map[string]string{}}, Progress: te.progress}
	return te
}

func (te *testEnv) progress(detail string) {
	te.alive.Record(detail)
	te.once.Do(func() { close(te.started) })
}

// pollOnly hides the fake client's Watch.
func (te *testEnv) pollOnly() { te.Client = struct{ crclient.Client }{te.client} }

func (te *testEnv) run(ctx context.Context, params map[string]string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a broken wait fails, not hangs
	defer cancel()
	return Task.Run(ctx, te.Env, stepenv.Params{Strings: params})
}

// setPhase moves the VMI active/vm through phases once the task waits.
func (te *testEnv) setPhase(t *testing.T, phases ...kubevirtv1.VirtualMachineInstancePhase) {
	go func() {
		<-te.started
		for _, phase := range phases {
			vmi := &kubevirtv1.VirtualMachineInstance{}
			if err := te.client.Get(context.Background(), crclient.ObjectKey{Namespace: "active", Name: "vm"}, vmi); err != nil {
				t.Errorf("getting the VMI: %v", err)
				return
			}
			vmi.Status.Phase = phase
			if err := te.client.Update(context.Background(), vmi); err != nil {
				t.Errorf("updating the VMI: %v", err)
			}
		}
	}()
}

func vmi(phase kubevirtv1.VirtualMachineInstancePhase) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "vm"},
		Status:     kubevirtv1.VirtualMachineInstanceStatus{Phase: phase},
	}
}

func conditions(success, failure string) map[string]string {
	return map[string]string{ParamVMIName: "vm", ParamSuccessCondition: success, ParamFailureCondition: failure}
}

func TestBadParametersFailWithUpstreamMessages(t *testing.T) {
	cases := map[string]struct {
		params map[string]string
		want   string
	}{
		"no name":           {map[string]string{ParamVMIName: " "}, "vmi-name should not be empty"},
		"bad name":          {map[string]string{ParamVMIName: "My_VM"}, "invalid vmi-name value: a lowercase RFC 1123 subdomain must consist of"},
		"bad namespace":     {map[string]string{ParamVMIName: "vm", ParamVMINamespace: "-ns"}, "invalid vmi-namespace value: a lowercase RFC 1123 subdomain must consist of"},
		"bad success":       {conditions("status.phase in Running", ""), "success-condition: could not parse condition status.phase in Running: "},
		"bad failure":       {conditions("", "status.phase === x"), "failure-condition: could not parse condition status.phase === x: "},
		"bad success first": {conditions("!!", "!!"), "success-condition: "},
		// upstream's own cases
		"bad success path":  {conditions("test.....test", ""), "success-condition: invalid condition: cannot parse jsonpath {.test.....test}: invalid multiple recursive descent"},
		"bad failure chars": {conditions("", "invalid#$%^$&"), "failure-condition: could not parse condition invalid#$%^$&: unable to parse requirement"},
		"name with spaces":  {map[string]string{ParamVMIName: "name with spaces"}, "invalid vmi-name value: a lowercase RFC 1123 subdomain must consist of"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := newTestEnv(t).run(context.Background(), tc.params)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
}

// Without conditions there is nothing to wait for, not even the VMI.
func TestNoConditionsSucceedAtOnce(t *testing.T) {
	te := newTestEnv(t)
	require.NoError(t, te.run(context.Background(), conditions(" ", "")))
	assert.Empty(t, te.alive.Details())
}

func TestSuccessConditionEndsTheWait(t *testing.T) {
	for _, watching := range []bool{true, false} {
		te := newTestEnv(t, vmi(kubevirtv1.Scheduling))
		if !watching {
			te.pollOnly()
		}
		te.setPhase(t, kubevirtv1.Running)
		require.NoError(t, te.run(context.Background(), conditions("status.phase == Running", "status.phase in (Failed, Unknown)")))
		assert.Equal(t, "waiting for VMI active/vm", te.alive.Details()[0])
	}
}

func TestFailureConditionFailsTheTask(t *testing.T) {
	for _, watching := range []bool{true, false} {
		te := newTestEnv(t, vmi(kubevirtv1.Running))
		if !watching {
			te.pollOnly()
		}
		te.setPhase(t, kubevirtv1.Failed)
		err := te.run(context.Background(), conditions("status.phase == Succeeded", "status.phase in (Failed, Unknown)"))
		assert.EqualError(t, err, `VMI active/vm fulfilled the failure condition "status.phase in (Failed, Unknown)" (phase "Failed")`)
		var exit interface{ ExitCode() int }
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, 2, exit.ExitCode(), "upstream's exit code")
	}
}

// The success condition is checked first.
func TestSuccessWinsWhenBothHold(t *testing.T) {
	te := newTestEnv(t, vmi(kubevirtv1.Running))
	require.NoError(t, te.run(context.Background(), conditions("status.phase == Running", "status.phase != Failed")))
}

// The watch sees a state the VMI only passes through.
func TestAPassingStateIsSeenByTheWatch(t *testing.T) {
	pollInterval = time.Hour
	defer func() { pollInterval = 5 * time.Millisecond }()
	te := newTestEnv(t, vmi(kubevirtv1.Scheduling))
	te.setPhase(t, kubevirtv1.Running, kubevirtv1.Succeeded)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, te.run(ctx, conditions("status.phase == Running", "")))
}

// A VMI that does not exist yet is waited for.
func TestAMissingVMIIsWaitedFor(t *testing.T) {
	for _, watching := range []bool{true, false} {
		te := newTestEnv(t)
		if !watching {
			te.pollOnly()
		}
		go func() {
			<-te.started
			other := vmi(kubevirtv1.Failed)
			other.Name = "other"
			_ = te.client.Create(context.Background(), other)
			if err := te.client.Create(context.Background(), vmi(kubevirtv1.Succeeded)); err != nil {
				t.Errorf("creating the VMI: %v", err)
			}
		}()
		require.NoError(t, te.run(context.Background(), conditions("status.phase == Succeeded", "status.phase == Failed")), "another VMI's failure is not ours")
	}
}

func TestNamespaceParameter(t *testing.T) {
	v := vmi(kubevirtv1.Running)
	v.Namespace = "other"
	te := newTestEnv(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	params := conditions("status.phase == Running", "")
	params[ParamVMINamespace] = " other "
	require.NoError(t, te.run(ctx, params))
}

func TestTheWaitEndsWithTheContext(t *testing.T) {
	te := newTestEnv(t, vmi(kubevirtv1.Scheduling))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := te.run(ctx, conditions("status.phase == Running", ""))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Greater(t, len(te.alive.Details()), 3, "alive on every look")
}

func TestMainReportsBadInputFirst(t *testing.T) {
	t.Setenv("VMI_NAME", "")
	assert.EqualError(t, Main(context.Background(), nil), "vmi-name should not be empty")
	t.Setenv("VMI_NAME", "vm")
	t.Setenv("SUCCESS_CONDITION", "a in b")
	assert.ErrorContains(t, Main(context.Background(), []string{"--debug"}), "success-condition: could not parse condition a in b")
	assert.EqualError(t, Main(context.Background(), []string{"--vmi-name=x"}), "unknown argument --vmi-name=x")
}
