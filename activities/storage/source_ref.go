package storage

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// Keys CDI reads from a DataVolume's secretRef and certConfigMap.
const (
	SecretKeyAccessKeyID = "accessKeyId"
	SecretKeySecretKey   = "secretKey"
)

// source resolves the request's secret and config map on the node, so
// credentials are read where they are used.
func (a *Activities) source(ctx context.Context, req cdi.ImportRequest) (Source, error) {
	return ResolveSource(ctx, a.Client, req.Namespace, req.Source)
}

// ResolveSource reads the secret (CDI's accessKeyId and secretKey) and the
// config map (every value, in key order, as one PEM bundle) a source names.
func ResolveSource(ctx context.Context, c client.Client, namespace string, ref cdi.SourceRef) (Source, error) {
	src := Source{URL: ref.URL}
	if name := ref.SecretRef; name != "" {
		sec := &corev1.Secret{}
		if err := get(ctx, c, namespace, name, sec); err != nil {
			return src, err
		}
		src.Username = string(sec.Data[SecretKeyAccessKeyID])
		src.Password = string(sec.Data[SecretKeySecretKey])
	}
	if name := ref.CertConfigMap; name != "" {
		cm := &corev1.ConfigMap{}
		if err := get(ctx, c, namespace, name, cm); err != nil {
			return src, err
		}
		for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
			src.CACert = append(src.CACert, []byte(cm.Data[k]+"\n")...)
		}
	}
	return src, nil
}

// get reads an object the source names. A missing one is retried, since
// users often create the secret after the DataVolume; the retry's last
// failure tells them what is missing.
func get(ctx context.Context, c client.Client, ns, name string, obj client.Object) error {
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj); err != nil {
		kind := fmt.Sprintf("%T", obj)
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%s %s/%s named by the source does not exist", kind[strings.LastIndex(kind, ".")+1:], ns, name)
		}
		return fmt.Errorf("reading %s/%s: %w", ns, name, err)
	}
	return nil
}
