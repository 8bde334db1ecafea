package hyperconverged

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// DataImportCronEnabledAnnotation turns a dataImportCronTemplate off when
// "false".
const DataImportCronEnabledAnnotation = "dataimportcrontemplate.kubevirt.io/enable"

// minCertDuration is the shortest certificate lifetime or renewal lead
// HCO accepts.
const minCertDuration = 10 * time.Minute

// specChecks are the checks of the spec alone, in HCO's order; on success
// they return the deprecation warnings of the tuning policy.
func specChecks(hc *hcov1beta1.HyperConverged) ([]string, error) {
	for _, check := range []func(*hcov1beta1.HyperConverged) error{
		checkCertConfig, checkDataImportCronTemplates, checkTLSSecurityProfile, checkMediatedDeviceTypes, checkAffinity,
	} {
		if err := check(hc); err != nil {
			return nil, err
		}
	}
	return tuningPolicyWarnings(hc), nil
}

func durationOf(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

// checkCertConfig names the first field that is too short in a fixed order
// (HCO walks a map, so with several too short it may name any of them).
func checkCertConfig(hc *hcov1beta1.HyperConverged) error {
	cc := hc.Spec.CertConfig
	caDur, caRenew := durationOf(cc.CA.Duration), durationOf(cc.CA.RenewBefore)
	srvDur, srvRenew := durationOf(cc.Server.Duration), durationOf(cc.Server.RenewBefore)
	for _, f := range []struct {
		name string
		d    time.Duration
	}{
		{"spec.certConfig.ca.duration", caDur}, {"spec.certConfig.ca.renewBefore", caRenew},
		{"spec.certConfig.server.duration", srvDur}, {"spec.certConfig.server.renewBefore", srvRenew},
	} {
		if f.d < minCertDuration {
			return fmt.Errorf("%v: value is too small", f.name)
		}
	}
	switch {
	case caDur < caRenew:
		return errors.New("spec.certConfig.ca: duration is smaller than renewBefore")
	case srvDur < srvRenew:
		return errors.New("spec.certConfig.server: duration is smaller than renewBefore")
	case caDur < srvDur:
		return errors.New("spec.certConfig: ca.duration is smaller than server.duration")
	}
	return nil
}

func checkDataImportCronTemplates(hc *hcov1beta1.HyperConverged) error {
	for _, dict := range hc.Spec.DataImportCronTemplates {
		val, ok := dict.Annotations[DataImportCronEnabledAnnotation]
		val = strings.ToLower(val)
		if ok && val != "false" && val != "true" {
			return fmt.Errorf(`the %s annotation of a dataImportCronTemplate must be either "true" or "false"`, DataImportCronEnabledAnnotation)
		}
		if (!ok || val == "true") && dict.Spec == nil {
			return errors.New("dataImportCronTemplate spec is empty for an enabled DataImportCronTemplate")
		}
	}
	return nil
}

// http2Ciphers are the ciphers HTTP/2 requires at least one of below TLS 1.3.
var http2Ciphers = []string{"ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"}

func checkTLSSecurityProfile(hc *hcov1beta1.HyperConverged) error {
	p := hc.Spec.TLSSecurityProfile
	if p == nil {
		return nil
	}
	if p.Custom == nil {
		if p.Type == ocpconfigv1.TLSProfileCustomType {
			return errors.New("missing required field spec.tlsSecurityProfile.custom when type is Custom")
		}
		return nil
	}
	minVersion := p.Custom.MinTLSVersion
	switch minVersion {
	case ocpconfigv1.VersionTLS10, ocpconfigv1.VersionTLS11, ocpconfigv1.VersionTLS12, ocpconfigv1.VersionTLS13:
	default:
		return errors.New("invalid value for spec.tlsSecurityProfile.custom.minTLSVersion")
	}
	hasHTTP2 := slices.ContainsFunc(p.Custom.Ciphers, func(c string) bool { return slices.Contains(http2Ciphers, c) })
	if minVersion < ocpconfigv1.VersionTLS13 && !hasHTTP2 {
		return errors.New("http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of ECDHE-RSA-AES128-GCM-SHA256 or ECDHE-ECDSA-AES128-GCM-SHA256)")
	}
	if minVersion == ocpconfigv1.VersionTLS13 && len(p.Custom.Ciphers) > 0 {
		return errors.New("custom ciphers cannot be selected when minTLSVersion is VersionTLS13")
	}
	return nil
}

// checkMediatedDeviceTypes refuses the deprecated spelling only when it
// disagrees with the new one; the mutator copies it over otherwise.
func checkMediatedDeviceTypes(hc *hcov1beta1.HyperConverged) error {
	mdc := hc.Spec.MediatedDevicesConfiguration
	if mdc == nil {
		return nil
	}
	conflict := func(old, cur []string) bool { return len(old) > 0 && len(cur) > 0 && !slices.Equal(old, cur) }
	if conflict(mdc.MediatedDevicesTypes, mdc.MediatedDeviceTypes) { //nolint:staticcheck // the deprecated field is what is checked
		return errors.New("mediatedDevicesTypes is deprecated, please use mediatedDeviceTypes instead")
	}
	for _, n := range mdc.NodeMediatedDeviceTypes {
		if conflict(n.MediatedDevicesTypes, n.MediatedDeviceTypes) { //nolint:staticcheck // as above
			return errors.New("mediatedDevicesTypes is deprecated, please use mediatedDeviceTypes instead")
		}
	}
	return nil
}

func checkAffinity(hc *hcov1beta1.HyperConverged) error {
	if np := hc.Spec.Workloads.NodePlacement; np != nil {
		if err := checkNodeAffinity(np.Affinity); err != nil {
			return fmt.Errorf("invalid workloads node placement affinity: %v", err.Error())
		}
	}
	if np := hc.Spec.Infra.NodePlacement; np != nil {
		if err := checkNodeAffinity(np.Affinity); err != nil {
			return fmt.Errorf("invalid infra node placement affinity: %v", err.Error())
		}
	}
	return nil
}

// checkNodeAffinity parses the required node selector the way the
// scheduler will, so a selector it cannot use is refused up front.
func checkNodeAffinity(a *corev1.Affinity) error {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	_, err := nodeaffinity.NewNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	return err
}

func tuningPolicyWarnings(hc *hcov1beta1.HyperConverged) []string {
	if hc.Spec.TuningPolicy == hcov1beta1.HyperConvergedHighBurstProfile {
		return []string{"spec.tuningPolicy: the highBurst profile is deprecated as of v1.16.0 and will be removed in a future release"}
	}
	return nil
}
