package kubenode

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// cri dials containerd's CRI services, as the kubelet does.
func (n *Node) cri() (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient("unix://"+n.ContainerdSocket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connecting to containerd's CRI: %w", err)
	}
	return conn, nil
}

// imageID is the ID (config digest) of the image the kubelet would run for
// ref, empty when there is none.
func (n *Node) imageID(ctx context.Context, ref string) (string, error) {
	conn, err := n.cri()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	resp, err := runtimeapi.NewImageServiceClient(conn).ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: ref}})
	if err != nil {
		return "", fmt.Errorf("looking up image %s: %w", ref, err)
	}
	if resp.Image == nil {
		return "", nil
	}
	return resp.Image.Id, nil
}
