package ssp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
)

func TestTheValidatorRunsAsItsAccountWhoseRoleKeepsThePolicy(t *testing.T) {
	objs, err := Install{Namespace: "kubevirt-hyperconverged", Image: "img"}.Render(context.Background(), nil, sspCR("openshift"), Validator)
	require.NoError(t, err)
	require.Equal(t, validatorSA, objs[0].(*appsv1.Deployment).Spec.Template.Spec.ServiceAccountName)
	require.Empty(t, rbacpolicy.Check(objs))
	require.Empty(t, rbacpolicy.Check(ValidatorRBAC("ns")))
	require.False(t, ValidatorAccess().APIServer, "a webhook, not an aggregated API server")
	require.Empty(t, ValidatorAccess().Namespaced)
}
