// Package bootsources computes what SSP's data-sources operand keeps in the
// boot-image namespace: the namespace itself, the roles that let every
// authenticated user read the boot images, one DataSource per OS the common
// templates clone from, and a DataImportCron per DataImportCron template of
// the SSP resource. It also decides, for a DataSource already there,
// whether a cron may take it over or whether it stays pointed at a claim
// someone provided.
//
// Everything here is computed: no clients. The caller reads the cluster
// (existing DataSources, whether a claim exists) and applies the results.
// The behaviour reproduces kubevirt/ssp-operator v0.26.0 on a cluster of
// one architecture; its per-architecture DataSources and crons, and its
// NetworkPolicies (which select CDI pods this platform does not run), are
// not reproduced.
package bootsources

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
)

// Names and keys SSP uses for boot sources; the console, CDI and users
// select by them, so they are spelled as SSP spells them.
const (
	// ViewRoleName names the Role, and its RoleBinding, granting read
	// access to the boot images.
	ViewRoleName = "os-images.kubevirt.io:view"
	// EditClusterRoleName names the ClusterRole an administrator may bind
	// to let someone manage boot images.
	EditClusterRoleName = "os-images.kubevirt.io:edit"
	// DataImportCronLabel on a DataSource names the cron CDI keeps it
	// current from. Its mere presence opts a DataSource in to automatic
	// updates, and removing it opts it out.
	DataImportCronLabel = "cdi.kubevirt.io/dataImportCron"
	// ArchitecturesAnnotation on a DataImportCron template lists the
	// architectures its image exists for; it is not copied to the cron.
	ArchitecturesAnnotation = "ssp.kubevirt.io/dict.architectures"
)

// Labels SSP puts on what the operand reconciles.
const (
	LabelAppName      = "app.kubernetes.io/name"
	LabelAppComponent = "app.kubernetes.io/component"
	LabelAppManagedBy = "app.kubernetes.io/managed-by"
	LabelAppPartOf    = "app.kubernetes.io/part-of"
	LabelAppVersion   = "app.kubernetes.io/version"

	// AppName is the operand's name.
	AppName = "data-sources"
	// AppComponent is the operand's component.
	AppComponent = "templating"
	// AppManagedBy is SSP's manager name.
	AppManagedBy = "ssp-operator"
)

// Annotations marking the SSP resource that owns an object. Owner
// references cannot point from another namespace, or from a cluster-scoped
// object, to the SSP resource, so SSP marks everything here this way and
// finds what it owns by them.
const (
	OwnerAnnotation     = "operator-sdk/primary-resource"
	OwnerTypeAnnotation = "operator-sdk/primary-resource-type"
)

// Options say where the boot sources go and which DataSources the common
// templates expect.
type Options struct {
	// Namespace holds the DataSources, the roles, and every cron whose
	// template names no namespace. Required.
	Namespace string
	// DataSourceNames are the common templates' DATA_SOURCE_NAME defaults;
	// duplicates are ignored.
	DataSourceNames []string
}

// ManagedDataSource is a DataSource the operand reconciles.
type ManagedDataSource struct {
	Namespace string
	Name      string
	// Cron names the DataImportCron that would keep it current; empty
	// when no template manages it.
	Cron string
}

// Plan is what the operand reconciles for one SSP resource.
type Plan struct {
	Namespace       *corev1.Namespace
	ViewRole        *rbacv1.Role
	ViewRoleBinding *rbacv1.RoleBinding
	EditRole        *rbacv1.ClusterRole
	// DataSources are the common templates' DataSources, sorted by name.
	// Which of them a cron keeps current is decided per DataSource by
	// TakeOver; DataSource then gives the object to write.
	DataSources []ManagedDataSource
	// Crons are every cron the templates ask for, before TakeOver's
	// decisions leave some out (see DataImportCrons), sorted by namespace
	// and name.
	Crons []cdiv1beta1.DataImportCron

	owner ownerRef
}

// ownerRef identifies the SSP resource and carries the labels it passes on.
type ownerRef struct {
	key    types.NamespacedName
	labels map[string]string
}

// New plans the boot sources of an SSP resource.
func New(ssp *sspv1beta3.SSP, opts Options) Plan {
	o := ownerRef{key: types.NamespacedName{Namespace: ssp.Namespace, Name: ssp.Name}, labels: ssp.Labels}
	crons := cronsByDataSource(ssp.Spec.CommonTemplates.DataImportCronTemplates, opts.Namespace, o)
	p := Plan{
		Namespace:       o.namespace(opts.Namespace),
		ViewRole:        o.viewRole(opts.Namespace),
		ViewRoleBinding: o.viewRoleBinding(opts.Namespace),
		EditRole:        o.editRole(),
		owner:           o,
	}
	names := slices.Clone(opts.DataSourceNames)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		m := ManagedDataSource{Namespace: opts.Namespace, Name: name}
		if c, ok := crons[types.NamespacedName{Namespace: opts.Namespace, Name: name}]; ok {
			m.Cron = c.Name
		}
		p.DataSources = append(p.DataSources, m)
	}
	for _, c := range crons {
		p.Crons = append(p.Crons, c)
	}
	slices.SortFunc(p.Crons, func(a, b cdiv1beta1.DataImportCron) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return p
}

// Owns tells whether obj carries this SSP resource's owner annotations.
func (p Plan) Owns(obj metav1.Object) bool {
	a := obj.GetAnnotations()
	return a[OwnerTypeAnnotation] == ownerType && a[OwnerAnnotation] == p.owner.key.String()
}
