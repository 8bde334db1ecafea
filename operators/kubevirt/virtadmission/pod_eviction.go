package virtadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/kubevirt/evacuation"
)

// PodEvictionValidatePath is where virt-api answers the evictions of
// launcher pods, as upstream's.
const PodEvictionValidatePath = "/pod-eviction-validate"

// evictionFormat is upstream's refusal once a VMI is marked; the
// descheduler parses it, so it must not change.
const evictionFormat = "Eviction triggered evacuation of VMI \"%s/%s\""

// The descheduler names itself on its evictions; its VMIs are marked so.
const (
	requestedByAnnotation  = "requested-by"
	requestedByDescheduler = "sigs.k8s.io/descheduler"
)

// clusterEviction is the KubeVirt CR's eviction strategy as virt-api last
// saw it.
var clusterEviction atomic.Pointer[kubevirtv1.EvictionStrategy]

// SetEvictionStrategy records the cluster's eviction strategy from the
// KubeVirt CR virt-api watches; nil (no CR) means none.
func SetEvictionStrategy(kv *kubevirtv1.KubeVirt) {
	clusterEviction.Store(evacuation.ClusterStrategy(kv))
}

// PodEvictionValidator is upstream's virt-launcher eviction interceptor:
// evicting a launcher pod whose VMI should move instead marks the VMI for
// evacuation (status.evacuationNodeName) and is refused with 429, so a
// drain keeps retrying until the evacuation controller has moved the VMI
// and its pod has completed.
type PodEvictionValidator struct {
	// Reader reads the pod and its VMI, uncached: an eviction is decided
	// on what the cluster holds now.
	Reader client.Reader
	// Writer marks the VMI.
	Writer client.Client
}

// Handle answers an eviction. A pod that cannot be read is let go, as
// upstream: the eviction itself then fails or succeeds on its own.
func (v *PodEvictionValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	pod := &corev1.Pod{}
	if err := v.Reader.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: req.Name}, pod); err != nil {
		return admission.Allowed("")
	}
	if pod.Labels[kubevirtv1.AppLabel] != "virt-launcher" || podCompleted(pod) {
		return admission.Allowed("")
	}
	vmiName, ok := pod.Annotations[kubevirtv1.DomainAnnotation]
	if !ok {
		return admission.Allowed("")
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := v.Reader.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: vmiName}, vmi); err != nil {
		return tooManyRequests(fmt.Sprintf("kubevirt failed getting the vmi: %v", err))
	}
	mark, refusal := shouldMark(vmi, clusterEviction.Load())
	if refusal != "" {
		return tooManyRequests(refusal)
	}
	if !mark {
		return admission.Allowed("")
	}
	return v.evacuate(ctx, req, pod, vmi)
}

// shouldMark is upstream's decision by strategy: whether to mark the VMI,
// or why the eviction is refused outright.
func shouldMark(vmi *kubevirtv1.VirtualMachineInstance, cluster *kubevirtv1.EvictionStrategy) (bool, string) {
	s := evacuation.Strategy(vmi, cluster)
	if s == nil {
		return false, ""
	}
	switch *s {
	case kubevirtv1.EvictionStrategyLiveMigrate:
		if !vmi.IsMigratable() {
			return false, fmt.Sprintf("VMI %s is configured with an eviction strategy but is not live-migratable", vmi.Name)
		}
		return true, ""
	case kubevirtv1.EvictionStrategyLiveMigrateIfPossible:
		return vmi.IsMigratable(), ""
	case kubevirtv1.EvictionStrategyExternal:
		return true, ""
	}
	return false, ""
}

// evacuate marks the VMI for evacuation from the pod's node and refuses
// the eviction; a VMI already marked, or the pod of a migration's target,
// is only refused.
func (v *PodEvictionValidator) evacuate(ctx context.Context, req admission.Request, pod *corev1.Pod, vmi *kubevirtv1.VirtualMachineInstance) admission.Response {
	if vmi.IsMarkedForEviction() {
		return tooManyRequests(fmt.Sprintf("Evacuation in progress: "+evictionFormat, vmi.Namespace, vmi.Name))
	}
	if vmi.Status.NodeName != pod.Spec.NodeName {
		return tooManyRequests("Eviction request for target Pod")
	}
	eviction := &policyv1.Eviction{}
	if err := json.Unmarshal(req.Object.Raw, eviction); err != nil {
		return tooManyRequests(fmt.Sprintf("failed to parse the eviction object: %v", err))
	}
	if err := v.mark(ctx, vmi, pod.Spec.NodeName, eviction, dryRun(req, eviction)); err != nil {
		return tooManyRequests(fmt.Sprintf("kubevirt failed marking the vmi for eviction: %v", err))
	}
	return tooManyRequests(fmt.Sprintf(evictionFormat, vmi.Namespace, vmi.Name))
}

// mark writes status.evacuationNodeName through the status subresource
// (the VMI's status is not writable otherwise) and, for the descheduler's
// evictions, upstream's eviction-source annotation on the object itself.
func (v *PodEvictionValidator) mark(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, node string, eviction *policyv1.Eviction, dry bool) error {
	var dryRunOpt []string
	if dry {
		dryRunOpt = []string{metav1.DryRunAll}
	}
	if eviction.Annotations[requestedByAnnotation] == requestedByDescheduler {
		before := vmi.DeepCopy()
		if vmi.Annotations == nil {
			vmi.Annotations = map[string]string{}
		}
		vmi.Annotations[kubevirtv1.EvictionSourceAnnotation] = "descheduler"
		if err := v.Writer.Patch(ctx, vmi, client.MergeFrom(before), &client.PatchOptions{DryRun: dryRunOpt}); err != nil {
			return fmt.Errorf("annotating the eviction source: %w", err)
		}
	}
	before := vmi.DeepCopy()
	vmi.Status.EvacuationNodeName = node
	opts := &client.SubResourcePatchOptions{PatchOptions: client.PatchOptions{DryRun: dryRunOpt}}
	return v.Writer.Status().Patch(ctx, vmi, client.MergeFrom(before), opts)
}

// dryRun is the request's dry run, or the eviction's own delete options
// asking for one.
func dryRun(req admission.Request, eviction *policyv1.Eviction) bool {
	if req.DryRun != nil && *req.DryRun {
		return true
	}
	opts := eviction.DeleteOptions
	return opts != nil && len(opts.DryRun) > 0 && opts.DryRun[0] == metav1.DryRunAll
}

func podCompleted(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// tooManyRequests is upstream's refusal of an eviction: 429, which
// kubectl drain and the descheduler take as "retry later".
func tooManyRequests(msg string) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Allowed: false,
		Result:  &metav1.Status{Message: msg, Code: http.StatusTooManyRequests},
	}}
}
