package virtctl

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

const (
	// forceBindAnnotation makes CDI bind the PVC at once even with a
	// WaitForFirstConsumer class: nothing consumes the volume during an upload.
	forceBindAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"
	uploadProxyPath     = "/v1beta1/upload"
	cdiConfigName       = "config"
)

// uploadPollInterval is how often DataVolume phases are read; a variable so
// tests need not wait a real second per poll.
var uploadPollInterval = time.Second

// errTimedOut marks --wait-secs running out, which upstream reports
// differently from a failed DataVolume.
var errTimedOut = errors.New("timed out")

// uploadFlags are the `image-upload` options, with upstream's names and defaults.
type uploadFlags struct {
	name, namespace                            string
	size, storageClass, accessMode, volumeMode string
	imagePath, proxyURL                        string
	insecure, noCreate, forceBind, blockVolume bool
	waitSecs                                   uint
}

// imageUpload streams a local disk image into a DataVolume through CDI's
// upload proxy. Flags are checked before connecting so that usage mistakes
// are reported even without a reachable cluster.
func imageUpload(ctx context.Context, args []string, kubeconfig, ns, as string, out io.Writer) error {
	f, err := parseUploadFlags(args, ns)
	if err != nil {
		return err
	}
	client, _, namespace, err := connect(kubeconfig, f.namespace, as)
	if err != nil {
		return err
	}
	u := &uploader{client: client, namespace: namespace, flags: f, out: out, progress: os.Stderr}
	return u.run(ctx)
}

func parseUploadFlags(args []string, namespace string) (*uploadFlags, error) {
	f := &uploadFlags{namespace: namespace, waitSecs: 300}
	fs := flag.NewFlagSet("image-upload", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.namespace, "namespace", f.namespace, "namespace of the DataVolume")
	fs.StringVar(&f.namespace, "n", f.namespace, "namespace of the DataVolume")
	fs.StringVar(&f.size, "size", "", "The size of the DataVolume to create (ex. 10Gi, 500Mi).")
	fs.StringVar(&f.storageClass, "storage-class", "", "The storage class for the PVC.")
	fs.StringVar(&f.accessMode, "access-mode", "", "The access mode for the PVC.")
	fs.StringVar(&f.volumeMode, "volume-mode", "", "The VolumeMode (block/filesystem) used to create the PVC.")
	fs.BoolVar(&f.blockVolume, "block-volume", false, "DEPRECATED - use --volume-mode=block.")
	fs.StringVar(&f.imagePath, "image-path", "", "Path to the local VM image.")
	fs.StringVar(&f.proxyURL, "uploadproxy-url", "", "The URL of the cdi-upload proxy service.")
	fs.BoolVar(&f.insecure, "insecure", false, "Allow insecure server connections when using HTTPS.")
	fs.BoolVar(&f.noCreate, "no-create", false, "Don't attempt to create a new DataVolume.")
	fs.BoolVar(&f.forceBind, "force-bind", false, "Force bind the PVC, ignoring the WaitForFirstConsumer logic.")
	fs.UintVar(&f.waitSecs, "wait-secs", f.waitSecs, "Seconds to wait for upload pod to start.")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if err := f.validate(pos); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *uploadFlags) validate(args []string) error {
	if len(args) != 2 {
		return errors.New("expecting two args")
	}
	switch strings.ToLower(args[0]) {
	case "dv":
	case "pvc":
		return fmt.Errorf("uploading to a bare PVC is not supported yet; use: virtctl image-upload dv %s", args[1])
	default:
		return fmt.Errorf("invalid resource type %s", args[0])
	}
	f.name = args[1]
	if errs := validation.IsDNS1123Subdomain(f.name); len(errs) > 0 {
		return fmt.Errorf("invalid DataVolume name %q: %s", f.name, strings.Join(errs, ","))
	}
	if f.imagePath == "" {
		return errors.New("--image-path is required")
	}
	if err := f.validateVolumeMode(); err != nil {
		return err
	}
	if !f.noCreate {
		// Building the object is the check, so flags and object cannot drift apart.
		if _, err := f.dataVolume(""); err != nil {
			return err
		}
	}
	return checkImageFile(f.imagePath)
}

func (f *uploadFlags) validateVolumeMode() error {
	f.volumeMode = strings.ToLower(f.volumeMode)
	if f.blockVolume {
		if f.volumeMode == "" {
			f.volumeMode = "block"
		} else if f.volumeMode != "block" {
			return fmt.Errorf("incompatible --volume-mode '%s' and --block-volume", f.volumeMode)
		}
	}
	if f.volumeMode != "" && f.volumeMode != "block" && f.volumeMode != "filesystem" {
		return fmt.Errorf("invalid volume mode '%s', valid values are 'block' and 'filesystem'", f.volumeMode)
	}
	return nil
}

// checkImageFile rejects what cannot be streamed with a known length:
// the proxy needs Content-Length, which a directory or device does not give.
func checkImageFile(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("reading --image-path: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--image-path %s is not a regular file", p)
	}
	if st.Size() == 0 {
		return fmt.Errorf("--image-path %s is empty", p)
	}
	return nil
}

// dataVolume is the upload DataVolume the flags describe.
func (f *uploadFlags) dataVolume(namespace string) (*cdiv1.DataVolume, error) {
	storage, err := f.storageSpec()
	if err != nil {
		return nil, err
	}
	dv := &cdiv1.DataVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: cdiv1.SchemeGroupVersion.String(), Kind: "DataVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: f.name, Namespace: namespace},
		Spec: cdiv1.DataVolumeSpec{
			Source:  &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}},
			Storage: storage,
		},
	}
	if f.forceBind {
		dv.Annotations = map[string]string{forceBindAnnotation: "true"}
	}
	return dv, nil
}

func (f *uploadFlags) storageSpec() (*cdiv1.StorageSpec, error) {
	if f.size == "" {
		return nil, errors.New("when creating a DataVolume, the size must be specified")
	}
	size, err := resource.ParseQuantity(f.size)
	if err != nil {
		return nil, fmt.Errorf("validation failed for size=%s: %w", f.size, err)
	}
	spec := &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceStorage: size},
	}}
	if f.storageClass != "" {
		spec.StorageClassName = ptr.To(f.storageClass)
	}
	switch mode := corev1.PersistentVolumeAccessMode(f.accessMode); mode {
	case "":
	case corev1.ReadOnlyMany:
		return nil, errors.New("cannot upload to a readonly volume, use either ReadWriteOnce or ReadWriteMany if supported")
	case corev1.ReadWriteOnce, corev1.ReadWriteMany, corev1.ReadWriteOncePod:
		spec.AccessModes = []corev1.PersistentVolumeAccessMode{mode}
	default:
		return nil, fmt.Errorf("invalid access mode %q, valid values are ReadWriteOnce, ReadWriteMany and ReadWriteOncePod", f.accessMode)
	}
	switch f.volumeMode {
	case "block":
		spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	case "filesystem":
		spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	return spec, nil
}

// uploader runs one image-upload against the cluster.
type uploader struct {
	client    rest.Interface
	namespace string
	flags     *uploadFlags
	out       io.Writer
	progress  io.Writer
	lastPhase cdiv1.DataVolumePhase
}

func (u *uploader) run(ctx context.Context) error {
	if err := u.prepare(ctx); err != nil {
		return err
	}
	if err := u.waitReady(ctx); err != nil {
		return err
	}
	proxyURL, client, err := u.proxy(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(u.out, "Uploading data to %s\n", proxyURL)
	token, err := u.token(ctx)
	if err != nil {
		return err
	}
	if err := upload(ctx, client, proxyURL, token, u.flags.imagePath, u.progress); err != nil {
		return err
	}
	fmt.Fprintln(u.out, "Uploading data completed successfully, waiting for processing to complete, you can hit ctrl-c without interrupting the progress")
	if err := u.waitProcessed(ctx); err != nil {
		return err
	}
	fmt.Fprintf(u.out, "Uploading %s completed successfully\n", u.flags.imagePath)
	return nil
}

func (u *uploader) dvPath() string {
	return "/apis/cdi.kubevirt.io/v1beta1/namespaces/" + u.namespace + "/datavolumes"
}

func (u *uploader) prepare(ctx context.Context) error {
	if u.flags.noCreate {
		return u.checkExisting(ctx)
	}
	dv, err := u.flags.dataVolume(u.namespace)
	if err != nil {
		return err
	}
	if err := u.checkStorageClass(ctx); err != nil {
		return err
	}
	body, err := json.Marshal(dv)
	if err != nil {
		return fmt.Errorf("encoding DataVolume %s: %w", dv.Name, err)
	}
	err = u.client.Post().AbsPath(u.dvPath()).Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Error()
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("DataVolume %s already exists", dv.Name)
	}
	if err != nil {
		return fmt.Errorf("creating DataVolume %s/%s: %w", u.namespace, dv.Name, err)
	}
	fmt.Fprintf(u.out, "DataVolume %s/%s created\n", u.namespace, dv.Name)
	return nil
}

// checkStorageClass fails early on a misspelled class, which would otherwise
// leave the DataVolume pending until --wait-secs runs out (as upstream does).
func (u *uploader) checkStorageClass(ctx context.Context) error {
	sc := u.flags.storageClass
	if sc == "" {
		return nil
	}
	err := u.client.Get().AbsPath("/apis/storage.k8s.io/v1/storageclasses", sc).Do(ctx).Error()
	switch {
	case err == nil, apierrors.IsForbidden(err):
		// Not every user may read classes; the DataVolume will report a bad one.
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("storage class %s not found", sc)
	}
	return fmt.Errorf("reading storage class %s: %w", sc, err)
}

func (u *uploader) checkExisting(ctx context.Context) error {
	dv, err := u.getDataVolume(ctx)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("DataVolume %s/%s not found (--no-create only uploads to an existing one)", u.namespace, u.flags.name)
	}
	if err != nil {
		return err
	}
	if dv.Spec.Source == nil || dv.Spec.Source.Upload == nil {
		return fmt.Errorf("DataVolume %s/%s is not available for upload: spec.source.upload is not set", u.namespace, dv.Name)
	}
	if dv.Status.Phase == cdiv1.Succeeded {
		return fmt.Errorf("PVC %s already successfully imported/cloned/updated", dv.Name)
	}
	fmt.Fprintf(u.out, "Using existing PVC %s/%s\n", u.namespace, dv.Name)
	return nil
}

func (u *uploader) getDataVolume(ctx context.Context) (*cdiv1.DataVolume, error) {
	raw, err := u.client.Get().AbsPath(u.dvPath(), u.flags.name).Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("reading DataVolume %s/%s: %w", u.namespace, u.flags.name, err)
	}
	dv := &cdiv1.DataVolume{}
	if err := json.Unmarshal(raw, dv); err != nil {
		return nil, fmt.Errorf("decoding DataVolume %s/%s: %w", u.namespace, u.flags.name, err)
	}
	u.lastPhase = dv.Status.Phase
	return dv, nil
}

func (u *uploader) waitReady(ctx context.Context) error {
	logged := false
	return u.poll(ctx, cdiv1.UploadReady, func(ctx context.Context) (bool, error) {
		dv, err := u.getDataVolume(ctx)
		if apierrors.IsNotFound(err) {
			return false, nil // a fresh create may not be readable yet
		}
		if err != nil {
			return false, err
		}
		ready, err := uploadReady(dv, u.flags.forceBind)
		if !ready && err == nil && !logged {
			fmt.Fprintf(u.out, "Waiting for PVC %s upload pod to be ready...\n", u.flags.name)
			logged = true
		}
		if ready && logged {
			fmt.Fprintln(u.out, "Pod now ready")
		}
		return ready, err
	})
}

// uploadReady tells whether the upload server accepts data. A volume
// waiting for its first consumer never gets one while we wait, so waiting
// is pointless unless --force-bind asked CDI to bind it anyway.
func uploadReady(dv *cdiv1.DataVolume, forceBind bool) (bool, error) {
	switch phase := dv.Status.Phase; phase {
	case cdiv1.UploadReady:
		return true, nil
	case cdiv1.WaitForFirstConsumer, cdiv1.PendingPopulation:
		if !forceBind {
			return false, fmt.Errorf("cannot upload to DataVolume in %s state, make sure the PVC is Bound, or use force-bind flag", phase)
		}
	case cdiv1.Failed:
		return false, dataVolumeFailed(dv)
	case cdiv1.Succeeded:
		return false, fmt.Errorf("PVC %s already successfully imported/cloned/updated", dv.Name)
	}
	return false, nil
}

// dataVolumeFailed explains a Failed DataVolume with its Running
// condition, where CDI puts the upload or conversion error.
func dataVolumeFailed(dv *cdiv1.DataVolume) error {
	reason := "no reason given"
	for _, c := range dv.Status.Conditions {
		if c.Type != cdiv1.DataVolumeRunning {
			continue
		}
		if c.Message != "" {
			reason = c.Message
		} else if c.Reason != "" {
			reason = c.Reason
		}
	}
	return fmt.Errorf("DataVolume %s/%s failed: %s", dv.Namespace, dv.Name, reason)
}

func (u *uploader) waitProcessed(ctx context.Context) error {
	err := u.poll(ctx, cdiv1.Succeeded, func(ctx context.Context) (bool, error) {
		dv, err := u.getDataVolume(ctx)
		if err != nil {
			return false, err
		}
		switch dv.Status.Phase {
		case cdiv1.Succeeded:
			return true, nil
		case cdiv1.Failed:
			return false, dataVolumeFailed(dv)
		}
		return false, nil
	})
	if errors.Is(err, errTimedOut) {
		fmt.Fprintln(u.out, "Timed out waiting for post upload processing to complete, please check upload pod status for progress")
	}
	if err == nil {
		fmt.Fprintln(u.out, "Processing completed successfully")
	}
	return err
}

// poll runs check every uploadPollInterval until it is done or fails,
// --wait-secs pass, or ctx (Ctrl-C) ends.
func (u *uploader) poll(ctx context.Context, want cdiv1.DataVolumePhase, check func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(time.Duration(u.flags.waitSecs) * time.Second)
	for {
		done, err := check(ctx)
		if err != nil || done {
			return err
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w after %ds waiting for DataVolume %s/%s to reach phase %s (last phase %q)",
				errTimedOut, u.flags.waitSecs, u.namespace, u.flags.name, want, u.lastPhase)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for DataVolume %s/%s: %w", u.namespace, u.flags.name, ctx.Err())
		case <-time.After(uploadPollInterval):
		}
	}
}
