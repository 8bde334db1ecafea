package hostpathprovisioner

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func hppRequest(t *testing.T, op admissionv1.Operation, obj, old *hppv1beta1.HostPathProvisioner) admission.Request {
	t.Helper()
	enc := func(o *hppv1beta1.HostPathProvisioner) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		o.TypeMeta = metav1.TypeMeta{APIVersion: "hostpathprovisioner.kubevirt.io/v1beta1", Kind: "HostPathProvisioner"}
		b, err := json.Marshal(o)
		require.NoError(t, err)
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op, Object: enc(obj), OldObject: enc(old)}}
}

func withSpec(spec hppv1beta1.HostPathProvisionerSpec) *hppv1beta1.HostPathProvisioner {
	return &hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "hostpath-provisioner"}, Spec: spec}
}

func pools(p ...hppv1beta1.StoragePool) hppv1beta1.HostPathProvisionerSpec {
	return hppv1beta1.HostPathProvisionerSpec{StoragePools: p}
}

func TestValidatorAsUpstream(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	h := Webhook(scheme).(*admission.Webhook)
	long := strings.Repeat("x", 51)
	cases := []struct {
		name string
		spec hppv1beta1.HostPathProvisionerSpec
		want string
	}{
		{"one pool", pools(hppv1beta1.StoragePool{Name: "local", Path: "/var/hpvolumes"}), ""},
		{"path config", hppv1beta1.HostPathProvisionerSpec{PathConfig: &hppv1beta1.PathConfig{Path: "/var/hpvolumes"}}, ""},
		{"both", hppv1beta1.HostPathProvisionerSpec{PathConfig: &hppv1beta1.PathConfig{Path: "/a"}, StoragePools: []hppv1beta1.StoragePool{{Name: "a", Path: "/a"}}},
			"pathConfig and storage pools cannot be both set"},
		{"neither", hppv1beta1.HostPathProvisionerSpec{}, "either pathConfig or storage pools must be set"},
		{"path config without path", hppv1beta1.HostPathProvisionerSpec{PathConfig: &hppv1beta1.PathConfig{UseNamingPrefix: true}}, "pathconfig path must be set"},
		{"pool without name", pools(hppv1beta1.StoragePool{Path: "/a"}), "storagePool.name cannot be blank"},
		{"pool name too long", pools(hppv1beta1.StoragePool{Name: long, Path: "/a"}), "storagePool.name cannot have a length greater than 50"},
		{"pool name at the limit", pools(hppv1beta1.StoragePool{Name: long[:50], Path: "/a"}), ""},
		{"pool without path", pools(hppv1beta1.StoragePool{Name: "a"}), "storagePool.path cannot be blank"},
		{"pool path too long", pools(hppv1beta1.StoragePool{Name: "a", Path: "/" + strings.Repeat("p", 255)}), "storagePool.path cannot have a length greater than 255"},
		{"two pools, one path", pools(hppv1beta1.StoragePool{Name: "a", Path: "/a"}, hppv1beta1.StoragePool{Name: "b", Path: "/b"}, hppv1beta1.StoragePool{Name: "c", Path: "/a"}),
			"spec.storagePools[2].path is the same as spec.storagePools[0].path, cannot have duplicate paths"},
		{"two pools, one name", pools(hppv1beta1.StoragePool{Name: "a", Path: "/a"}, hppv1beta1.StoragePool{Name: "a", Path: "/b"}),
			"spec.storagePools[1].name is the same as spec.storagePools[0].name, cannot have duplicate names"},
		{"a bad pool is named before a repeat", pools(hppv1beta1.StoragePool{Name: "a", Path: "/a"}, hppv1beta1.StoragePool{Name: "a", Path: ""}),
			"storagePool.path cannot be blank"},
	}
	for _, c := range cases {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			t.Run(c.name+"/"+string(op), func(t *testing.T) {
				var old *hppv1beta1.HostPathProvisioner
				if op == admissionv1.Update {
					old = withSpec(pools(hppv1beta1.StoragePool{Name: "old", Path: "/old"}))
				}
				resp := h.Handle(context.Background(), hppRequest(t, op, withSpec(c.spec), old))
				if c.want == "" {
					require.True(t, resp.Allowed, "%+v", resp.Result)
					require.Equal(t, int32(http.StatusOK), resp.Result.Code)
					return
				}
				require.False(t, resp.Allowed)
				require.Equal(t, int32(http.StatusForbidden), resp.Result.Code)
				require.Equal(t, metav1.StatusReasonForbidden, resp.Result.Reason)
				require.Equal(t, c.want, resp.Result.Message)
			})
		}
	}
}

func TestValidatorAllowsEveryDeletionAndRefusesWhatItCannotRead(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	h := Webhook(scheme).(*admission.Webhook)
	resp := h.Handle(context.Background(), hppRequest(t, admissionv1.Delete, nil, withSpec(hppv1beta1.HostPathProvisionerSpec{})))
	require.True(t, resp.Allowed)

	resp = h.Handle(context.Background(), hppRequest(t, admissionv1.Create, nil, nil))
	require.False(t, resp.Allowed)
	require.Equal(t, int32(http.StatusBadRequest), resp.Result.Code)
	require.Equal(t, "there is no content to decode", resp.Result.Message)
}

func TestValidatingWebhookAsHCORegistersIt(t *testing.T) {
	w := ValidatingWebhook(func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hpp" + path)}
	})
	require.Equal(t, "validate-hostpath-provisioner.kubevirt.io", w.Name)
	require.Equal(t, "https://hpp/validate-hostpathprovisioner-kubevirt-io-v1beta1-hostpathprovisioner", *w.ClientConfig.URL)
	require.Equal(t, []admissionregistrationv1.OperationType{"CREATE", "DELETE", "UPDATE"}, w.Rules[0].Operations)
	require.Equal(t, []string{"hostpathprovisioners"}, w.Rules[0].Resources)
	require.Equal(t, []string{"v1beta1"}, w.AdmissionReviewVersions)
	require.Equal(t, admissionregistrationv1.Fail, *w.FailurePolicy)
	require.Equal(t, admissionregistrationv1.SideEffectClassNone, *w.SideEffects)
}
