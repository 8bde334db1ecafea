package storage

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Keys CDI reads from a DataVolume's secretRef and certConfigMap.
const (
	SecretKeyAccessKeyID = "accessKeyId"
	SecretKeySecretKey   = "secretKey"
)

// source resolves the request's secret and config map on the node, so
// credentials are read where they are used.
func (a *Activities) source(ctx context.Context, req ImportRequest) (Source, error) {
	src := Source{URL: req.Source.URL}
	if name := req.Source.SecretRef; name != "" {
		sec := &corev1.Secret{}
		if err := a.get(ctx, req.Namespace, name, sec); err != nil {
			return src, err
		}
		src.Username = string(sec.Data[SecretKeyAccessKeyID])
		src.Password = string(sec.Data[SecretKeySecretKey])
	}
	if name := req.Source.CertConfigMap; name != "" {
		cm := &corev1.ConfigMap{}
		if err := a.get(ctx, req.Namespace, name, cm); err != nil {
			return src, err
		}
		for _, v := range cm.Data {
			src.CACert = append(src.CACert, []byte(v+"\n")...)
		}
	}
	return src, nil
}

// get reads an object the source names. A missing one is retried, since
// users often create the secret after the DataVolume; the retry's last
// failure tells them what is missing.
func (a *Activities) get(ctx context.Context, ns, name string, obj client.Object) error {
	if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj); err != nil {
		kind := fmt.Sprintf("%T", obj)
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%s %s/%s named by the source does not exist", kind[strings.LastIndex(kind, ".")+1:], ns, name)
		}
		return fmt.Errorf("reading %s/%s: %w", ns, name, err)
	}
	return nil
}
