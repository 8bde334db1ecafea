package cdistatus

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

var dataSources = Kind[*cdiv1.DataSource]{
	Name: "DataSource",
	Conditions: func(ds *cdiv1.DataSource) []Condition {
		return StatesOf(ds.Status.Conditions, func(c *cdiv1.DataSourceCondition) (string, *cdiv1.ConditionState) {
			return string(c.Type), &c.ConditionState
		})
	},
}

func ready(status corev1.ConditionStatus, reason string) func(*cdiv1.DataSource) {
	return func(ds *cdiv1.DataSource) {
		ds.Status.Conditions = []cdiv1.DataSourceCondition{{Type: cdiv1.DataSourceReady, ConditionState: cdiv1.ConditionState{Status: status, Reason: reason}}}
	}
}

// A condition keeps its times while it says the same; a write happens only
// when the status changed.
func TestWriteKeepsTimesOfUnchangedConditionsAndWritesOnlyChanges(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	ds := &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ds"}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ds).Build()
	ctx := context.Background()
	get := func() *cdiv1.DataSource {
		got := &cdiv1.DataSource{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(ds), got))
		return got
	}

	wrote, err := dataSources.Write(ctx, c, get(), ready(corev1.ConditionFalse, "NoSource"))
	require.NoError(t, err)
	require.True(t, wrote)
	first := get().Status.Conditions[0].LastTransitionTime
	require.False(t, first.IsZero())

	time.Sleep(1100 * time.Millisecond) // metav1.Time keeps seconds
	wrote, err = dataSources.Write(ctx, c, get(), ready(corev1.ConditionFalse, "NoSource"))
	require.NoError(t, err)
	require.False(t, wrote, "nothing changed, nothing written")

	wrote, err = dataSources.Write(ctx, c, get(), ready(corev1.ConditionTrue, "Ready"))
	require.NoError(t, err)
	require.True(t, wrote)
	require.True(t, first.Before(&get().Status.Conditions[0].LastTransitionTime), "a change moves the transition time")
}
