package cdi

import (
	"context"
	"fmt"

	"github.com/virtflow/virtflow/kube/uploadtoken"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
	"github.com/virtflow/virtflow/operators/cdi/dataimportcron"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
	"github.com/virtflow/virtflow/operators/cdi/volumepopulator"
)

// Install is what cdi-operator's workloads are made of.
type Install struct {
	// Namespace is where the components run; the CDI CR is cluster-scoped.
	Namespace string
	// Image holds /usr/bin/virtflow, which runs every component.
	Image string
	// TemporalAddress is the Temporal frontend cdi-deployment starts
	// imports, uploads and clones on.
	TemporalAddress string
	// TemporalTLS, when set, has cdi-deployment dial with its own
	// certificate; nil dials in plaintext.
	TemporalTLS *workloads.TemporalTLS
}

// Names of CDI's objects, as upstream's cdi-operator creates them.
const (
	APIServerCerts     = "cdi-apiserver-server-cert"
	APIService         = "cdi-api"
	SigningKeySecret   = uploadtoken.SigningKeySecret
	DataVolumeHook     = "cdi-api-datavolume-validate"
	DataImportCronHook = "cdi-api-dataimportcron-validate"
	PopulatorHook      = "cdi-api-populator-validate"
	UploadProxyCerts   = "cdi-uploadproxy-server-cert"
	UploadProxy        = cdiconfig.UploadProxyService
	// CertDir is where a component's serving certificate is mounted.
	CertDir = "/var/run/certs/server"
	// KeyDir is where the token signing key (cdi-apiserver) or its public
	// half (cdi-uploadproxy) is mounted.
	KeyDir = uploadtoken.KeyDir
)

const componentLabel = "cdi.kubevirt.io"

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, _ client.Object, name string) ([]client.Object, error) {
	switch name {
	case "cdi-apiserver":
		return in.apiServer(ctx, c)
	case "cdi-deployment":
		return in.controller(), nil
	case "cdi-uploadproxy":
		return in.uploadProxy(ctx, c)
	}
	return nil, fmt.Errorf("cdi-operator has no workload for %s", name)
}

func labels(name string) map[string]string {
	return map[string]string{componentLabel: name, "app.kubernetes.io/managed-by": "cdi-operator", "app.kubernetes.io/component": "storage"}
}

func selector(name string) map[string]string { return map[string]string{componentLabel: name} }

func (in Install) controller() []client.Object {
	c := workloads.Container(in.Image, "cdi-controller", "cdi-controller", []string{"--temporal-address=" + in.TemporalAddress})
	c.SecurityContext = workloads.NonRoot()
	vols := workloads.TemporalClient(&c, in.TemporalTLS, temporalauth.CDIDeployment)
	d := workloads.Deployment(in.Namespace, "cdi-deployment", "cdi-sa", labels("cdi-deployment"), selector("cdi-deployment"), c, vols...)
	return append([]client.Object{d}, identity(in.Namespace, "cdi-deployment", labels("cdi-sa"))...)
}

func (in Install) apiServer(ctx context.Context, r client.Reader) ([]client.Object, error) {
	ns, l := in.Namespace, labels("cdi-apiserver")
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, APIServerCerts, []string{APIService + "." + ns + ".svc"}, l)
	if err != nil {
		return nil, err
	}
	key, err := in.signingKey(ctx, r)
	if err != nil {
		return nil, err
	}
	cc := workloads.ServiceClientConfig(ns, APIService, bundle)
	dvHook := validatingConfig(DataVolumeHook, l, DataVolumeWebhook(cc))
	cronHook := validatingConfig(DataImportCronHook, l, DataImportCronWebhook(cc))
	populatorHook := validatingConfig(PopulatorHook, l, PopulatorWebhook(cc))
	uninstallHook := validatingConfig(UninstallHook, l, UninstallWebhook(cc))
	c := in.servingContainer("cdi-apiserver")
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "signing-key", MountPath: KeyDir, ReadOnly: true})
	d := workloads.Deployment(ns, "cdi-apiserver", "cdi-apiserver", l, selector("cdi-apiserver"), c,
		workloads.ServingVolume(APIServerCerts), workloads.SecretVolume("signing-key", SigningKeySecret, cdiapi.PrivateKeyFile))
	objs := []client.Object{
		d, certs, key, workloads.Service(ns, APIService, selector("cdi-apiserver"), l),
		workloads.APIService(cdiapi.Group, cdiapi.Version, ns, APIService, bundle, l), dvHook, cronHook, populatorHook, uninstallHook,
	}
	return append(objs, identity(ns, "cdi-apiserver", l)...), nil
}

// DataVolumeWebhook is cdi-apiserver's DataVolume validator, as upstream
// names it, reached through cc.
func DataVolumeWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	return webhookconfig.Validating(cc, "datavolume-validate.cdi.kubevirt.io", datavolume.ValidatePath,
		webhookconfig.Rules("cdi.kubevirt.io", "v1beta1", "datavolumes", admissionregistrationv1.Create, admissionregistrationv1.Update))
}

// DataImportCronWebhook is cdi-apiserver's DataImportCron validator, as
// upstream names it, reached through cc.
func DataImportCronWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	return webhookconfig.Validating(cc, "dataimportcron-validate.cdi.kubevirt.io", dataimportcron.ValidatePath,
		webhookconfig.Rules("cdi.kubevirt.io", "v1beta1", "dataimportcrons", admissionregistrationv1.Create, admissionregistrationv1.Update))
}

// PopulatorWebhook is cdi-apiserver's populator source validator, as
// upstream names it, reached through cc; only VolumeImportSources have a
// CRD here.
func PopulatorWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	return webhookconfig.Validating(cc, "populator-validate.cdi.kubevirt.io", volumepopulator.ValidatePath,
		webhookconfig.Rules("cdi.kubevirt.io", "v1beta1", "volumeimportsources", admissionregistrationv1.Create, admissionregistrationv1.Update))
}

// validatingConfig is a ValidatingWebhookConfiguration of one webhook, as
// cdi-operator makes one per webhook.
func validatingConfig(name string, labels map[string]string, hook admissionregistrationv1.ValidatingWebhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook},
	}
}

// signingKey is the Secret with the key cdi-apiserver signs upload
// tokens with, kept once generated.
func (in Install) signingKey(ctx context.Context, r client.Reader) (*corev1.Secret, error) {
	data, err := workloads.ExistingSecretData(ctx, r, in.Namespace, SigningKeySecret)
	if err != nil {
		return nil, err
	}
	if _, err := cdiapi.EnsureSigningKey(data); err != nil {
		return nil, err
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: in.Namespace, Name: SigningKeySecret, Labels: labels("cdi-apiserver")},
		Data:       data,
	}, nil
}

// servingContainer runs a TLS component behind its Service, non-root,
// with its serving certificate mounted.
func (in Install) servingContainer(name string) corev1.Container {
	c := workloads.Container(in.Image, name, name, []string{"--cert-dir=" + CertDir, "--key-dir=" + KeyDir})
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "https", ContainerPort: workloads.ServingPort, Protocol: corev1.ProtocolTCP})
	c.SecurityContext = workloads.NonRoot()
	c.VolumeMounts = []corev1.VolumeMount{{Name: "certificates", MountPath: CertDir, ReadOnly: true}}
	return c
}

// uploadProxy is cdi-uploadproxy: its Deployment, Service, certificate
// and the CA bundle users' clients trust it by. The certificate names the
// Service's cluster IP, how clients outside the pod network (a node's
// shell) reach the proxy, so it is issued once the Service has one: until
// then the pod waits for its certificate volume.
func (in Install) uploadProxy(ctx context.Context, r client.Reader) ([]client.Object, error) {
	ns, l := in.Namespace, labels(UploadProxy)
	c := in.servingContainer(UploadProxy)
	// It routes each upload by its workflow's memo, read from Temporal.
	c.Command = append(c.Command, "--temporal-address="+in.TemporalAddress, "--upload-server-tls-dir="+uploadtoken.ClientCertDir)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "verification-key", MountPath: KeyDir, ReadOnly: true},
		corev1.VolumeMount{Name: uploadtoken.ClientCertsSecret, MountPath: uploadtoken.ClientCertDir, ReadOnly: true})
	vols := append(workloads.TemporalClient(&c, in.TemporalTLS, temporalauth.UploadProxy),
		workloads.ServingVolume(UploadProxyCerts), workloads.SecretVolume("verification-key", SigningKeySecret, cdiapi.PublicKeyFile),
		uploadClientVolume())
	d := workloads.Deployment(ns, UploadProxy, UploadProxy, l, selector(UploadProxy), c, vols...)
	serverCerts, err := uploadServerCerts(ctx, r, ns, l)
	if err != nil {
		return nil, err
	}
	objs := append([]client.Object{d, workloads.Service(ns, UploadProxy, selector(UploadProxy), l)}, serverCerts...)
	objs = append(objs, identity(ns, UploadProxy, l)...)
	ip, err := clusterIP(ctx, r, ns, UploadProxy)
	if err != nil || ip == "" {
		return objs, err
	}
	hosts := []string{UploadProxy + "." + ns + ".svc", UploadProxy + "." + ns, ip}
	certs, bundle, err := workloads.ServingCert(ctx, r, ns, UploadProxyCerts, hosts, l)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cdiconfig.UploadProxyBundle, Labels: l},
		Data:       map[string]string{cdiconfig.BundleKey: string(bundle)},
	}
	return append(objs, certs, cm), nil
}

// clusterIP is a Service's cluster IP, empty while it has none.
func clusterIP(ctx context.Context, r client.Reader, ns, name string) (string, error) {
	if r == nil {
		return "", nil
	}
	svc := &corev1.Service{}
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, svc)
	if client.IgnoreNotFound(err) != nil {
		return "", fmt.Errorf("reading Service %s: %w", name, err)
	}
	if ip := svc.Spec.ClusterIP; ip != corev1.ClusterIPNone {
		return ip, nil
	}
	return "", nil
}
