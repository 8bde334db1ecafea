package hyperconverged

import (
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/net"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	"github.com/virtflow/virtflow/operands"
)

// TuningPolicyAnnotation carries the rate limits of the annotation tuning
// policy.
const TuningPolicyAnnotation = "hco.kubevirt.io/tuningPolicy"

// deriveAll derives every component CR a new HyperConverged asks for, so a
// spec the components cannot take is refused before anything is created.
func deriveAll(hc *hcov1beta1.HyperConverged) error {
	if _, err := deriveKubeVirt(hc); err != nil {
		return err
	}
	if _, err := deriveCDI(hc); err != nil {
		return err
	}
	if _, err := deriveNetworkAddons(hc); err != nil {
		return err
	}
	_, err := deriveSSP(hc)
	return err
}

func deriveKubeVirt(hc *hcov1beta1.HyperConverged) (*kubevirtv1.KubeVirt, error) {
	if bw := hc.Spec.LiveMigrationConfig.BandwidthPerMigration; bw != nil {
		if _, err := resource.ParseQuantity(*bw); err != nil {
			return nil, fmt.Errorf("failed to parse the LiveMigrationConfig.bandwidthPerMigration field; %w", err)
		}
	}
	if err := checkTuningAnnotation(hc); err != nil {
		return nil, err
	}
	kv := desired[*kubevirtv1.KubeVirt](hc)
	return kv, operands.ApplyJSONPatch(hc, kv)
}

func deriveCDI(hc *hcov1beta1.HyperConverged) (*cdiv1beta1.CDI, error) {
	cdi := desired[*cdiv1beta1.CDI](hc)
	return cdi, operands.ApplyJSONPatch(hc, cdi)
}

func deriveNetworkAddons(hc *hcov1beta1.HyperConverged) (*nacv1.NetworkAddonsConfig, error) {
	if ip := hc.Spec.KubeSecondaryDNSNameServerIP; ip != nil && *ip != "" && !net.IsIPv4String(*ip) {
		return nil, errors.New("kubeSecondaryDNSNameServerIP isn't a valid IPv4")
	}
	nac := desired[*nacv1.NetworkAddonsConfig](hc)
	return nac, operands.ApplyJSONPatch(hc, nac)
}

func deriveSSP(hc *hcov1beta1.HyperConverged) (*sspv1beta3.SSP, error) {
	seen := map[string]bool{}
	for _, dict := range hc.Spec.DataImportCronTemplates {
		if seen[dict.Name] {
			return nil, fmt.Errorf("%s DataImportCronTable is already defined", dict.Name)
		}
		seen[dict.Name] = true
	}
	ssp := desired[*sspv1beta3.SSP](hc)
	return ssp, operands.ApplyJSONPatch(hc, ssp)
}

// desired is the component CR of type T the HyperConverged derives.
func desired[T client.Object](hc *hcov1beta1.HyperConverged) T {
	for _, obj := range operands.Desired(hc) {
		if t, ok := obj.(T); ok {
			return t
		}
	}
	var none T
	return none
}

// checkTuningAnnotation insists, under the annotation tuning policy, on an
// annotation with positive qps and burst.
func checkTuningAnnotation(hc *hcov1beta1.HyperConverged) error {
	if hc.Spec.TuningPolicy != hcov1beta1.HyperConvergedAnnotationTuningPolicy {
		return nil
	}
	raw, ok := hc.Annotations[TuningPolicyAnnotation]
	if !ok {
		return errors.New("tuning policy set but annotation not present or wrong")
	}
	var limits struct {
		QPS   float32 `json:"qps"`
		Burst int     `json:"burst"`
	}
	if err := json.Unmarshal([]byte(raw), &limits); err != nil {
		return err
	}
	if limits.QPS <= 0 {
		return errors.New("qps parameter not found in annotation")
	}
	if limits.Burst <= 0 {
		return errors.New("burst parameter not found in annotation")
	}
	return nil
}
