package upload

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	uploadv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/upload/v1beta1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
)

// takesUpload reads the DataVolume and refuses one without an upload
// source: the proxy would refuse it too, but only after the browser had
// started sending the image.
func takesUpload(ctx context.Context, c rest.Interface, ns, name string) error {
	raw, err := kubeapi.Body(c.Get().AbsPath("/apis/cdi.kubevirt.io/v1beta1/namespaces", ns, "datavolumes", name).Do(ctx))
	if err != nil {
		return err
	}
	dv := &cdiv1.DataVolume{}
	if err := json.Unmarshal(raw, dv); err != nil {
		return fmt.Errorf("decoding DataVolume %s/%s: %w", ns, name, err)
	}
	if dv.Spec.Source == nil || dv.Spec.Source.Upload == nil {
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusConflict, Reason: metav1.StatusReasonConflict,
			Message: fmt.Sprintf("DataVolume %s/%s takes no upload: its spec.source is not upload", ns, name),
			Details: &metav1.StatusDetails{Name: name, Group: cdiv1.SchemeGroupVersion.Group, Kind: "DataVolume"},
		}}
	}
	return nil
}

// requestToken asks CDI's aggregated API for the token cdi-uploadproxy
// checks, with virtctl image-upload's request: named after the claim,
// which a DataVolume shares its name with.
func requestToken(ctx context.Context, c rest.Interface, ns, name string) (string, error) {
	body, err := json.Marshal(uploadv1.UploadTokenRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: uploadv1.SchemeGroupVersion.String(), Kind: "UploadTokenRequest"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       uploadv1.UploadTokenRequestSpec{PvcName: name},
	})
	if err != nil {
		return "", fmt.Errorf("encoding the upload token request: %w", err)
	}
	raw, err := kubeapi.Body(c.Post().AbsPath("/apis/upload.cdi.kubevirt.io/v1beta1/namespaces", ns, "uploadtokenrequests").
		Body(body).SetHeader("Content-Type", "application/json").Do(ctx))
	if err != nil {
		return "", err
	}
	resp := &uploadv1.UploadTokenRequest{}
	if err := json.Unmarshal(raw, resp); err != nil {
		return "", fmt.Errorf("decoding the upload token for %s/%s: %w", ns, name, err)
	}
	if resp.Status.Token == "" {
		return "", fmt.Errorf("the upload token request for %s/%s returned no token", ns, name)
	}
	return resp.Status.Token, nil
}
