package hyperconverged

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/operands"
)

const testNS = "kubevirt-hyperconverged"

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	return scheme
}

func raw(t *testing.T, obj any) runtime.RawExtension {
	t.Helper()
	if obj == nil {
		return runtime.RawExtension{}
	}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return runtime.RawExtension{Raw: b}
}

func request(t *testing.T, op admissionv1.Operation, obj, old any) admission.Request {
	t.Helper()
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op, Object: raw(t, obj), OldObject: raw(t, old)}}
}

// validHC is a HyperConverged as the API server hands it over, defaults
// applied.
func validHC() *hcov1beta1.HyperConverged {
	d := func(s string) *metav1.Duration {
		v, _ := time.ParseDuration(s)
		return &metav1.Duration{Duration: v}
	}
	hc := &hcov1beta1.HyperConverged{
		TypeMeta:   metav1.TypeMeta{APIVersion: "hco.kubevirt.io/v1beta1", Kind: "HyperConverged"},
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: hcov1beta1.HyperConvergedName, UID: "hc-uid"},
	}
	hc.Spec.CertConfig.CA = hcov1beta1.CertRotateConfigCA{Duration: d("48h"), RenewBefore: d("24h")}
	hc.Spec.CertConfig.Server = hcov1beta1.CertRotateConfigServer{Duration: d("24h"), RenewBefore: d("12h")}
	return hc
}

// components are the component CRs the valid HyperConverged derives, as
// the reconciler would have created them.
func components(t *testing.T) []client.Object {
	t.Helper()
	var objs []client.Object
	for _, o := range operands.Desired(validHC()) {
		switch o.(type) {
		case *kubevirtv1.KubeVirt, *cdiv1beta1.CDI, *nacv1.NetworkAddonsConfig:
			objs = append(objs, o)
		}
	}
	require.Len(t, objs, 3)
	return objs
}

func newValidator(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *Validator {
	t.Helper()
	scheme := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithInterceptorFuncs(funcs).Build()
	return &Validator{Client: c, Decoder: admission.NewDecoder(scheme)}
}

// want is an admission outcome: allowed, or denied with HCO's code,
// reason and message; and the warnings either way.
type want struct {
	allowed  bool
	code     int32
	reason   metav1.StatusReason
	message  string
	warnings []string
}

func forbidden(msg string) want {
	return want{code: http.StatusForbidden, reason: metav1.StatusReasonForbidden, message: msg}
}

var allowed = want{allowed: true, code: http.StatusOK}

func requireOutcome(t *testing.T, w want, resp admission.Response) {
	t.Helper()
	require.Equal(t, w.allowed, resp.Allowed, "result: %+v", resp.Result)
	require.Equal(t, w.code, resp.Result.Code)
	require.Equal(t, w.reason, resp.Result.Reason)
	require.Equal(t, w.message, resp.Result.Message)
	require.Equal(t, w.warnings, []string(resp.Warnings))
}

func TestValidatorCreate(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*hcov1beta1.HyperConverged)
		want   want
	}{
		{"valid", func(*hcov1beta1.HyperConverged) {}, allowed},
		{"CA lifetime too short", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.CA.Duration.Duration = 5 * time.Minute },
			forbidden("spec.certConfig.ca.duration: value is too small")},
		{"CA renewal lead too short", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.CA.RenewBefore.Duration = 5 * time.Minute },
			forbidden("spec.certConfig.ca.renewBefore: value is too small")},
		{"server lifetime too short", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.Server.Duration.Duration = 9 * time.Minute },
			forbidden("spec.certConfig.server.duration: value is too small")},
		{"server renewal lead too short", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.Server.RenewBefore.Duration = time.Minute },
			forbidden("spec.certConfig.server.renewBefore: value is too small")},
		{"CA renewed before it is issued", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.CA.RenewBefore.Duration = 49 * time.Hour },
			forbidden("spec.certConfig.ca: duration is smaller than renewBefore")},
		{"server renewed before it is issued", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.Server.RenewBefore.Duration = 25 * time.Hour },
			forbidden("spec.certConfig.server: duration is smaller than renewBefore")},
		{"CA shorter than server", func(hc *hcov1beta1.HyperConverged) { hc.Spec.CertConfig.Server.Duration.Duration = 49 * time.Hour },
			forbidden("spec.certConfig: ca.duration is smaller than server.duration")},
		{"template enable annotation not a bool", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{{ObjectMeta: metav1.ObjectMeta{
				Name: "fedora", Annotations: map[string]string{DataImportCronEnabledAnnotation: "yes"}}}}
		}, forbidden(`the dataimportcrontemplate.kubevirt.io/enable annotation of a dataImportCronTemplate must be either "true" or "false"`)},
		{"enabled template without spec", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{{ObjectMeta: metav1.ObjectMeta{Name: "fedora"}}}
		}, forbidden("dataImportCronTemplate spec is empty for an enabled DataImportCronTemplate")},
		{"disabled template without spec", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{{ObjectMeta: metav1.ObjectMeta{
				Name: "fedora", Annotations: map[string]string{DataImportCronEnabledAnnotation: "FALSE"}}}}
		}, allowed},
		{"template defined twice", func(hc *hcov1beta1.HyperConverged) {
			dict := hcov1beta1.DataImportCronTemplate{ObjectMeta: metav1.ObjectMeta{Name: "fedora"}, Spec: &hcov1beta1.DataImportCronSpec{Schedule: "* * * * *"}}
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{dict, dict}
		}, forbidden("fedora DataImportCronTable is already defined")},
		{"custom TLS type without profile", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType}
		}, forbidden("missing required field spec.tlsSecurityProfile.custom when type is Custom")},
		{"custom TLS with unknown version", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = customTLS("VersionTLS15")
		}, forbidden("invalid value for spec.tlsSecurityProfile.custom.minTLSVersion")},
		{"custom TLS without an HTTP/2 cipher", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS12, "ECDHE-RSA-AES256-GCM-SHA384")
		}, forbidden("http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of ECDHE-RSA-AES128-GCM-SHA256 or ECDHE-ECDSA-AES128-GCM-SHA256)")},
		{"custom TLS with an HTTP/2 cipher", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS11, "ECDHE-ECDSA-AES128-GCM-SHA256")
		}, allowed},
		{"custom TLS 1.3 with ciphers", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS13, "ECDHE-RSA-AES128-GCM-SHA256")
		}, forbidden("custom ciphers cannot be selected when minTLSVersion is VersionTLS13")},
		{"custom TLS 1.3 without ciphers", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS13)
		}, allowed},
		{"both mdev spellings, differing", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.MediatedDevicesConfiguration = &hcov1beta1.MediatedDevicesConfiguration{
				MediatedDeviceTypes: []string{"nvidia-222"}, MediatedDevicesTypes: []string{"nvidia-223"}}
		}, forbidden("mediatedDevicesTypes is deprecated, please use mediatedDeviceTypes instead")},
		{"node mdev spellings differing", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.MediatedDevicesConfiguration = &hcov1beta1.MediatedDevicesConfiguration{
				NodeMediatedDeviceTypes: []hcov1beta1.NodeMediatedDeviceTypesConfig{{
					MediatedDeviceTypes: []string{"nvidia-222"}, MediatedDevicesTypes: []string{"nvidia-223"}}}}
		}, forbidden("mediatedDevicesTypes is deprecated, please use mediatedDeviceTypes instead")},
		{"workloads affinity with a bad operator", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.Workloads.NodePlacement = requiredAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "zone", Operator: "WrongOperator", Values: []string{"a"}}}})
		}, forbidden(`invalid workloads node placement affinity: nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "WrongOperator": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`)},
		{"infra affinity on two names", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.Infra.NodePlacement = requiredAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}})
		}, forbidden(`invalid infra node placement affinity: nodeSelectorTerms[0].matchFields[0].values: Invalid value: ["a","b"]: must have one element`)},
		{"highBurst tuning", func(hc *hcov1beta1.HyperConverged) { hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedHighBurstProfile },
			want{allowed: true, code: http.StatusOK, warnings: []string{"spec.tuningPolicy: the highBurst profile is deprecated as of v1.16.0 and will be removed in a future release"}}},
		{"annotation tuning without annotation", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedAnnotationTuningPolicy
		}, forbidden("tuning policy set but annotation not present or wrong")},
		{"annotation tuning without qps", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedAnnotationTuningPolicy
			hc.Annotations = map[string]string{TuningPolicyAnnotation: `{"burst": 200}`}
		}, forbidden("qps parameter not found in annotation")},
		{"annotation tuning without burst", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedAnnotationTuningPolicy
			hc.Annotations = map[string]string{TuningPolicyAnnotation: `{"qps": 100}`}
		}, forbidden("burst parameter not found in annotation")},
		{"annotation tuning that is not JSON", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedAnnotationTuningPolicy
			hc.Annotations = map[string]string{TuningPolicyAnnotation: `qps`}
		}, forbidden("invalid character 'q' looking for beginning of value")},
		{"annotation tuning", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedAnnotationTuningPolicy
			hc.Annotations = map[string]string{TuningPolicyAnnotation: `{"qps": 100, "burst": 200}`}
		}, allowed},
		{"unparsable bandwidth", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("lots")
		},
			forbidden("failed to parse the LiveMigrationConfig.bandwidthPerMigration field; quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")},
		{"secondary DNS server not IPv4", func(hc *hcov1beta1.HyperConverged) { hc.Spec.KubeSecondaryDNSNameServerIP = ptr.To("fd00::1") },
			forbidden("kubeSecondaryDNSNameServerIP isn't a valid IPv4")},
		{"KubeVirt patch outside spec", func(hc *hcov1beta1.HyperConverged) {
			hc.Annotations = map[string]string{operands.JSONPatchKubeVirtAnnotation: `[{"op": "add", "path": "/metadata/labels/x", "value": "y"}]`}
		}, forbidden("invalid jsonPatch in the kubevirt.kubevirt.io/jsonpatch annotation: can only modify spec fields")},
		{"CDI patch that is not JSON", func(hc *hcov1beta1.HyperConverged) {
			hc.Annotations = map[string]string{operands.JSONPatchCDIAnnotation: `not a patch`}
		}, forbidden("invalid jsonPatch in the containerizeddataimporter.kubevirt.io/jsonpatch annotation: invalid state detected")},
		{"network patch removing what is absent", func(hc *hcov1beta1.HyperConverged) {
			hc.Annotations = map[string]string{operands.JSONPatchNetworkAddonsAnnotation: `[{"op": "remove", "path": "/spec/ovs"}]`}
		}, forbidden("invalid jsonPatch in the networkaddonsconfigs.kubevirt.io/jsonpatch annotation: error in remove for path: '/spec/ovs': unable to remove nonexistent key: ovs: missing value")},
		{"SSP patch within spec", func(hc *hcov1beta1.HyperConverged) {
			hc.Annotations = map[string]string{operands.JSONPatchSSPAnnotation: `[{"op": "add", "path": "/spec/templateValidator/replicas", "value": 5}]`}
		}, allowed},
		{"deprecated and moved gates", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.FeatureGates.NonRoot = ptr.To(true)
			hc.Spec.FeatureGates.PersistentReservation = ptr.To(false)
			hc.Spec.FeatureGates.DeployVMConsoleProxy = ptr.To(false)
		}, want{allowed: true, code: http.StatusOK, warnings: []string{
			"spec.featureGates.nonRoot is deprecated and ignored. It will be removed in a future version;",
			"spec.featureGates.persistentReservation is deprecated. Use spec.storage.persistentReservationConfiguration.enabled in the v1 API instead; it will be removed in a future version.",
			"spec.featureGates.deployVmConsoleProxy is deprecated and ignored. It will removed in a future version; use spec.deployVmConsoleProxy instead",
		}}},
		{"a denial keeps the gate warnings", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.FeatureGates.DisableMDevConfiguration = ptr.To(false)
			hc.Spec.TuningPolicy = hcov1beta1.HyperConvergedHighBurstProfile
			hc.Spec.CertConfig.CA.Duration.Duration = time.Minute
		}, want{code: http.StatusForbidden, reason: metav1.StatusReasonForbidden, message: "spec.certConfig.ca.duration: value is too small",
			warnings: []string{mdevGateWarning}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := validHC()
			c.modify(hc)
			resp := newValidator(t, interceptor.Funcs{}).Handle(context.Background(), request(t, admissionv1.Create, hc, nil))
			requireOutcome(t, c.want, resp)
		})
	}
}

func customTLS(v ocpconfigv1.TLSProtocolVersion, ciphers ...string) *ocpconfigv1.TLSSecurityProfile {
	return &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{MinTLSVersion: v, Ciphers: ciphers}}}
}

func requiredAffinity(term corev1.NodeSelectorTerm) *hcov1beta1.NodePlacement {
	return &hcov1beta1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}}
}

func TestValidatorRefusesWhatItCannotRead(t *testing.T) {
	v := newValidator(t, interceptor.Funcs{})
	for _, c := range []struct {
		name string
		req  admission.Request
		want string
	}{
		{"create without object", request(t, admissionv1.Create, nil, validHC()), "there is no content to decode"},
		{"update without old object", request(t, admissionv1.Update, validHC(), nil), "there is no content to decode"},
		{"delete without old object", request(t, admissionv1.Delete, validHC(), nil), "there is no content to decode"},
		{"unknown operation", request(t, "MALFORMED", validHC(), nil), `unknown operation request "MALFORMED"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := v.Handle(context.Background(), c.req)
			requireOutcome(t, want{code: http.StatusBadRequest, message: c.want}, resp)
		})
	}
}

func TestValidatorUpdate(t *testing.T) {
	conflicts := 0
	cases := []struct {
		name    string
		objs    []client.Object
		funcs   interceptor.Funcs
		modify  func(old, hc *hcov1beta1.HyperConverged)
		want    want
		updates int
	}{
		{name: "unchanged spec needs no components", modify: func(_, hc *hcov1beta1.HyperConverged) { hc.Labels = map[string]string{"a": "b"} }, want: allowed},
		{name: "changed spec without KubeVirt", modify: func(_, hc *hcov1beta1.HyperConverged) { hc.Spec.TuningPolicy = "annotation" },
			want: want{code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, message: `kubevirts.kubevirt.io "kubevirt-kubevirt-hyperconverged" not found`}},
		{name: "changed spec tried on the components", objs: components(t),
			modify: func(_, hc *hcov1beta1.HyperConverged) {
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("64Mi")
			}, want: allowed},
		{name: "a component's refusal is passed on", objs: components(t), funcs: interceptor.Funcs{
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if _, ok := obj.(*cdiv1beta1.CDI); ok {
					return apierrors.NewInvalid(schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}, obj.GetName(), nil)
				}
				return c.Update(ctx, obj, opts...)
			}},
			modify: func(_, hc *hcov1beta1.HyperConverged) {
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("64Mi")
			},
			want: want{code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, message: `CDI.cdi.kubevirt.io "cdi-kubevirt-hyperconverged" is invalid`}},
		{name: "conflicts are retried", objs: components(t), funcs: interceptor.Funcs{
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if _, ok := obj.(*kubevirtv1.KubeVirt); ok && conflicts < 2 {
					conflicts++
					return apierrors.NewConflict(schema.GroupResource{Group: "kubevirt.io", Resource: "kubevirts"}, obj.GetName(), nil)
				}
				return c.Update(ctx, obj, opts...)
			}},
			modify: func(_, hc *hcov1beta1.HyperConverged) { hc.Annotations = map[string]string{"x": "y"} }, want: allowed},
		{name: "an unparsable bandwidth is refused once components exist", objs: components(t),
			modify: func(_, hc *hcov1beta1.HyperConverged) {
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("lots")
			},
			want: forbidden("failed to parse the LiveMigrationConfig.bandwidthPerMigration field; quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")},
		{name: "a HyperConverged being deleted is not tried on the components", modify: func(_, hc *hcov1beta1.HyperConverged) {
			hc.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			hc.Spec.TuningPolicy = "annotation"
			hc.Annotations = map[string]string{TuningPolicyAnnotation: `{"qps": 1, "burst": 1}`}
		}, want: allowed},
		{name: "moved gates warn when changed", objs: components(t), modify: func(old, hc *hcov1beta1.HyperConverged) {
			old.Spec.FeatureGates.EnableCommonBootImageImport = ptr.To(true)
			hc.Spec.FeatureGates.EnableCommonBootImageImport = ptr.To(false)
			old.Spec.FeatureGates.EnableApplicationAwareQuota = ptr.To(true)
			hc.Spec.FeatureGates.EnableApplicationAwareQuota = ptr.To(true)
		}, want: want{allowed: true, code: http.StatusOK, warnings: []string{
			"spec.featureGates.enableCommonBootImageImport is deprecated and ignored. It will removed in a future version; use spec.enableCommonBootImageImport instead",
		}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, hc := validHC(), validHC()
			c.modify(old, hc)
			resp := newValidator(t, c.funcs, c.objs...).Handle(context.Background(), request(t, admissionv1.Update, hc, old))
			requireOutcome(t, c.want, resp)
		})
	}
	require.Equal(t, 2, conflicts)
}

func TestValidatorDelete(t *testing.T) {
	refusal := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `admission webhook "kubevirt-validator.kubevirt.io" denied the request: Rejecting the uninstall request, since there are still Virtual Machines present.`}}
	var deleted []string
	record := interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		deleted = append(deleted, obj.GetName())
		do := &client.DeleteOptions{}
		do.ApplyOptions(opts)
		require.Equal(t, []string{metav1.DryRunAll}, do.DryRun, "only a dry run")
		return c.Delete(ctx, obj, opts...)
	}}
	foreign := components(t)
	for _, o := range foreign {
		o.SetLabels(map[string]string{operands.LabelApp: "someone-else"})
	}
	cases := []struct {
		name    string
		objs    []client.Object
		funcs   interceptor.Funcs
		want    want
		deleted []string
	}{
		{name: "nothing to remove", funcs: record, want: allowed},
		{name: "the components allow it", objs: components(t), funcs: record, want: allowed,
			deleted: []string{operands.KubeVirtName, operands.CDIName}},
		{name: "components not ours are left alone", objs: foreign, funcs: record, want: allowed},
		{name: "KubeVirt refuses", objs: components(t), funcs: interceptor.Funcs{
			Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error { return refusal }},
			want: want{code: http.StatusForbidden, reason: metav1.StatusReasonForbidden, message: refusal.ErrStatus.Message}},
		{name: "reading CDI fails", funcs: interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if key.Name == operands.CDIName {
					return apierrors.NewServiceUnavailable("etcd is down")
				}
				return c.Get(ctx, key, obj, opts...)
			}},
			want: want{code: http.StatusServiceUnavailable, reason: metav1.StatusReasonServiceUnavailable, message: "etcd is down"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			deleted = nil
			resp := newValidator(t, c.funcs, c.objs...).Handle(context.Background(), request(t, admissionv1.Delete, nil, validHC()))
			requireOutcome(t, c.want, resp)
			require.Equal(t, c.deleted, deleted)
		})
	}
}
