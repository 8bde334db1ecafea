package kube

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnDefaultStorageClass marks the cluster's default StorageClass.
const AnnDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

// DefaultStorageClass is the class annotated as the cluster's default,
// empty when there is none.
func DefaultStorageClass(ctx context.Context, c client.Client) (string, error) {
	var classes storagev1.StorageClassList
	if err := c.List(ctx, &classes); err != nil {
		return "", fmt.Errorf("listing storage classes: %w", err)
	}
	for _, sc := range classes.Items {
		if sc.Annotations[AnnDefaultStorageClass] == "true" {
			return sc.Name, nil
		}
	}
	return "", nil
}
