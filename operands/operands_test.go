package operands

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

func newHC() *hcov1beta1.HyperConverged {
	return &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "u1",
	}}
}

func TestHostPathProvisionerOnlyWhenAnnotated(t *testing.T) {
	hc := newHC()
	require.Len(t, Desired(hc), 4)
	hc.Annotations = map[string]string{HostPathAnnotation: "/var/hpvolumes"}
	objs := Desired(hc)
	require.Len(t, objs, 5)
	require.Equal(t, hco.KindHostPathProvisioner, RefOf(objs[4]).Kind)
}
