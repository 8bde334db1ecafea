// Package storageclass finds the cluster's default StorageClass.
package storageclass

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnIsDefault marks the cluster's default StorageClass.
const AnnIsDefault = "storageclass.kubernetes.io/is-default-class"

// Default is the class annotated as the cluster's default,
// empty when there is none.
func Default(ctx context.Context, c client.Client) (string, error) {
	var classes storagev1.StorageClassList
	if err := c.List(ctx, &classes); err != nil {
		return "", fmt.Errorf("listing storage classes: %w", err)
	}
	for _, sc := range classes.Items {
		if sc.Annotations[AnnIsDefault] == "true" {
			return sc.Name, nil
		}
	}
	return "", nil
}
