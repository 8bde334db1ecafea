package kubenode

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// initializingCRI answers like containerd's CRI while it recovers its pods.
type initializingCRI struct {
	runtimeapi.RuntimeServiceClient
	unavailable int
	calls       int
	err         error
}

func (c *initializingCRI) ListPodSandbox(context.Context, *runtimeapi.ListPodSandboxRequest, ...grpc.CallOption) (*runtimeapi.ListPodSandboxResponse, error) {
	c.calls++
	if c.calls <= c.unavailable {
		return nil, status.Error(codes.Unavailable, "server is not initialized yet")
	}
	if c.err != nil {
		return nil, c.err
	}
	return &runtimeapi.ListPodSandboxResponse{Items: []*runtimeapi.PodSandbox{{Id: "a"}}}, nil
}

func TestListPodsWaitsForTheCRIToInitialize(t *testing.T) {
	cri := &initializingCRI{unavailable: 2}
	pods, err := listPods(context.Background(), cri)
	require.NoError(t, err)
	require.Len(t, pods.Items, 1)
	require.Equal(t, 3, cri.calls)
}

func TestListPodsGivesUpOnOtherErrors(t *testing.T) {
	cri := &initializingCRI{err: status.Error(codes.PermissionDenied, "no")}
	_, err := listPods(context.Background(), cri)
	require.ErrorContains(t, err, "listing pods")
	require.Equal(t, 1, cri.calls)
}
