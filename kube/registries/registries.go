// Package registries reads CDIConfig's registry settings.
package registries

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Insecure tells whether CDIConfig lists the registry host of a
// docker:// URL among its insecureRegistries.
func Insecure(ctx context.Context, c client.Reader, url string) bool {
	cfg := &cdiv1.CDIConfig{}
	if err := c.Get(ctx, types.NamespacedName{Name: "config"}, cfg); err != nil {
		return false
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "docker://"), "/")
	return slices.Contains(cfg.Spec.InsecureRegistries, host)
}
