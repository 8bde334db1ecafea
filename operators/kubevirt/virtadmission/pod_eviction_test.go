package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

var migratable = kubevirtv1.VirtualMachineInstanceCondition{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionTrue}

func launcher(node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-abcde",
			Labels:      map[string]string{kubevirtv1.AppLabel: "virt-launcher"},
			Annotations: map[string]string{kubevirtv1.DomainAnnotation: "vm"}},
		Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase},
	}
}

func evictableVMI(strategy *kubevirtv1.EvictionStrategy, conds ...kubevirtv1.VirtualMachineInstanceCondition) *kubevirtv1.VirtualMachineInstance {
	vmi := vmiIn(kubevirtv1.Running, conds...)
	// Stored objects have a UID; the fake client's patches need one.
	vmi.UID = "vmi-uid"
	vmi.Spec.EvictionStrategy = strategy
	vmi.Status.NodeName = "node-1"
	return vmi
}

func strategy(s kubevirtv1.EvictionStrategy) *kubevirtv1.EvictionStrategy { return &s }

type evictionCase struct {
	objs     []client.Object
	eviction policyv1.Eviction
	dryRun   bool
}

// evict asks the interceptor about evicting the launcher and returns its
// answer and the VMI as stored afterwards (nil when there is none).
func evict(t *testing.T, ec evictionCase) (admission.Response, *kubevirtv1.VirtualMachineInstance) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ec.objs...).
		WithStatusSubresource(&kubevirtv1.VirtualMachineInstance{}).Build()
	ec.eviction.Name, ec.eviction.Namespace = "virt-launcher-vm-abcde", "ns"
	raw, err := json.Marshal(&ec.eviction)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create,
		Namespace: "ns", Name: "virt-launcher-vm-abcde", Object: runtime.RawExtension{Raw: raw}, DryRun: &ec.dryRun}}
	resp := (&PodEvictionValidator{Reader: c, Writer: c}).Handle(context.Background(), req)
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "vm"}, vmi); err != nil {
		return resp, nil
	}
	return resp, vmi
}

func TestEvictionsThatNeedNoEvacuationAreAllowed(t *testing.T) {
	completed := launcher("node-1", corev1.PodSucceeded)
	notLauncher := launcher("node-1", corev1.PodRunning)
	notLauncher.Labels = map[string]string{"app": "web"}
	noDomain := launcher("node-1", corev1.PodRunning)
	noDomain.Annotations = nil
	running := launcher("node-1", corev1.PodRunning)
	cases := map[string][]client.Object{
		"no such pod":             nil,
		"not a launcher":          {notLauncher, evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)},
		"a completed launcher":    {completed, evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)},
		"no domain annotation":    {noDomain, evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)},
		"no strategy anywhere":    {running, evictableVMI(nil, migratable)},
		"strategy None":           {running, evictableVMI(strategy(kubevirtv1.EvictionStrategyNone), migratable)},
		"IfPossible, not a mover": {running, evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrateIfPossible))},
	}
	for name, objs := range cases {
		t.Run(name, func(t *testing.T) {
			resp, vmi := evict(t, evictionCase{objs: objs})
			assert.True(t, resp.Allowed, resp.Result)
			if vmi != nil {
				assert.Empty(t, vmi.Status.EvacuationNodeName)
			}
		})
	}
}

func TestAnEvictionMarksTheVMIAndIsRefusedWith429(t *testing.T) {
	for _, s := range []kubevirtv1.EvictionStrategy{kubevirtv1.EvictionStrategyLiveMigrate,
		kubevirtv1.EvictionStrategyLiveMigrateIfPossible, kubevirtv1.EvictionStrategyExternal} {
		t.Run(string(s), func(t *testing.T) {
			resp, vmi := evict(t, evictionCase{objs: []client.Object{launcher("node-1", corev1.PodRunning), evictableVMI(strategy(s), migratable)}})
			require.False(t, resp.Allowed)
			assert.Equal(t, int32(http.StatusTooManyRequests), resp.Result.Code)
			assert.Equal(t, `Eviction triggered evacuation of VMI "ns/vm"`, resp.Result.Message)
			assert.Equal(t, "node-1", vmi.Status.EvacuationNodeName)
			assert.NotContains(t, vmi.Annotations, kubevirtv1.EvictionSourceAnnotation)
		})
	}
}

func TestTheClusterStrategyAppliesToVMIsWithoutTheirOwn(t *testing.T) {
	t.Cleanup(func() { SetEvictionStrategy(nil) })
	kv := &kubevirtv1.KubeVirt{}
	kv.Spec.Configuration.EvictionStrategy = strategy(kubevirtv1.EvictionStrategyLiveMigrate)
	SetEvictionStrategy(kv)
	resp, vmi := evict(t, evictionCase{objs: []client.Object{launcher("node-1", corev1.PodRunning), evictableVMI(nil, migratable)}})
	assert.Equal(t, `Eviction triggered evacuation of VMI "ns/vm"`, resp.Result.Message)
	assert.Equal(t, "node-1", vmi.Status.EvacuationNodeName)

	resp, _ = evict(t, evictionCase{objs: []client.Object{launcher("node-1", corev1.PodRunning),
		evictableVMI(strategy(kubevirtv1.EvictionStrategyNone), migratable)}})
	assert.True(t, resp.Allowed, "the VMI's own strategy wins")
}

func TestEvictionsAreRefusedWithUpstreamsWords(t *testing.T) {
	marked := evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)
	marked.Status.EvacuationNodeName = "node-1"
	cases := map[string]struct {
		objs []client.Object
		want string
	}{
		"no VMI": {[]client.Object{launcher("node-1", corev1.PodRunning)},
			`kubevirt failed getting the vmi: virtualmachineinstances.kubevirt.io "vm" not found`},
		"LiveMigrate, not migratable": {[]client.Object{launcher("node-1", corev1.PodRunning), evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate))},
			"VMI vm is configured with an eviction strategy but is not live-migratable"},
		"already marked": {[]client.Object{launcher("node-1", corev1.PodRunning), marked},
			`Evacuation in progress: Eviction triggered evacuation of VMI "ns/vm"`},
		"a migration's target pod": {[]client.Object{launcher("node-2", corev1.PodRunning), evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)},
			"Eviction request for target Pod"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp, vmi := evict(t, evictionCase{objs: tc.objs})
			require.False(t, resp.Allowed)
			assert.Equal(t, int32(http.StatusTooManyRequests), resp.Result.Code)
			assert.Equal(t, tc.want, resp.Result.Message)
			if vmi != nil && name != "already marked" {
				assert.Empty(t, vmi.Status.EvacuationNodeName, "a refused eviction marks nothing")
			}
		})
	}
}

func TestADryRunEvictionMarksNothing(t *testing.T) {
	objs := func() []client.Object {
		return []client.Object{launcher("node-1", corev1.PodRunning), evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)}
	}
	byRequest := evictionCase{objs: objs(), dryRun: true}
	byOptions := evictionCase{objs: objs(), eviction: policyv1.Eviction{DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}}
	for name, ec := range map[string]evictionCase{"request": byRequest, "delete options": byOptions} {
		t.Run(name, func(t *testing.T) {
			resp, vmi := evict(t, ec)
			assert.Equal(t, int32(http.StatusTooManyRequests), resp.Result.Code)
			assert.Equal(t, `Eviction triggered evacuation of VMI "ns/vm"`, resp.Result.Message)
			assert.Empty(t, vmi.Status.EvacuationNodeName)
		})
	}
}

func TestTheDeschedulersEvictionsAreMarkedAsItsOwn(t *testing.T) {
	ev := policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"requested-by": "sigs.k8s.io/descheduler"}}}
	_, vmi := evict(t, evictionCase{eviction: ev,
		objs: []client.Object{launcher("node-1", corev1.PodRunning), evictableVMI(strategy(kubevirtv1.EvictionStrategyLiveMigrate), migratable)}})
	assert.Equal(t, "descheduler", vmi.Annotations[kubevirtv1.EvictionSourceAnnotation])
	assert.Equal(t, "node-1", vmi.Status.EvacuationNodeName)
}

func TestTheEvictionInterceptorIsRegisteredAsUpstreams(t *testing.T) {
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: &path}
	}
	var hook *admissionregistrationv1.ValidatingWebhook
	for _, h := range ValidatingWebhooks(cc) {
		if h.Name == "virt-launcher-eviction-interceptor.kubevirt.io" {
			hook = &h
		}
	}
	require.NotNil(t, hook)
	assert.Equal(t, PodEvictionValidatePath, *hook.ClientConfig.URL)
	assert.Equal(t, admissionregistrationv1.Fail, *hook.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *hook.SideEffects)
	require.Len(t, hook.Rules, 1)
	assert.Equal(t, []string{""}, hook.Rules[0].APIGroups)
	assert.Equal(t, []string{"pods/eviction"}, hook.Rules[0].Resources)
	assert.Equal(t, []admissionregistrationv1.MatchCondition{{Name: "only-vms", Expression: `object.metadata.name.startsWith("virt-launcher")`}}, hook.MatchConditions)
}
