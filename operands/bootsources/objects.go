package bootsources

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
)

// ownerType is the owner's group and kind, as the owner annotations write
// it.
var ownerType = sspv1beta3.GroupVersion.WithKind("SSP").GroupKind().String()

// read and readWrite are the verbs of the roles' rules, fresh for each
// rule so that no two rules share a slice.
func read() []string { return []string{"get", "list", "watch"} }
func readWrite() []string {
	return []string{"create", "delete", "get", "list", "patch", "update", "watch"}
}

// mark labels obj as this operand's and annotates its owner. Owner
// references are cleared, as SSP does for objects it marks by annotation.
func (o ownerRef) mark(obj metav1.Object) {
	o.annotate(obj)
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	// SSP copies these two from its resource whenever that has labels at
	// all, so a missing one is written as empty.
	if o.labels != nil {
		labels[LabelAppPartOf] = o.labels[LabelAppPartOf]
		labels[LabelAppVersion] = o.labels[LabelAppVersion]
	}
	labels[LabelAppName] = AppName
	labels[LabelAppComponent] = AppComponent
	labels[LabelAppManagedBy] = AppManagedBy
	obj.SetLabels(labels)
}

// annotate sets the owner annotations and nothing else: DataSources that
// a cron keeps current get no app labels.
func (o ownerRef) annotate(obj metav1.Object) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[OwnerAnnotation] = o.key.String()
	a[OwnerTypeAnnotation] = ownerType
	obj.SetAnnotations(a)
	obj.SetOwnerReferences(nil)
}

func (o ownerRef) namespace(name string) *corev1.Namespace {
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}
	o.mark(ns)
	return ns
}

// viewRole lets its subjects read the boot images and clone from them
// (datavolumes/source is what CDI checks before cloning a claim).
func (o ownerRef) viewRole(namespace string) *rbacv1.Role {
	r := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: ViewRoleName, Namespace: namespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"persistentvolumeclaims", "persistentvolumeclaims/status"}, Verbs: read()},
			{APIGroups: []string{"snapshot.storage.k8s.io"}, Resources: []string{"volumesnapshots", "volumesnapshots/status"}, Verbs: read()},
			{APIGroups: []string{cdiv1beta1.SchemeGroupVersion.Group}, Resources: []string{"datavolumes"}, Verbs: read()},
			{APIGroups: []string{cdiv1beta1.SchemeGroupVersion.Group}, Resources: []string{"datavolumes/source"}, Verbs: []string{"create"}},
			{APIGroups: []string{cdiv1beta1.SchemeGroupVersion.Group}, Resources: []string{"datasources"}, Verbs: read()},
			{APIGroups: []string{cdiv1beta1.SchemeGroupVersion.Group}, Resources: []string{"dataimportcrons"}, Verbs: read()},
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"namespaces"}, Verbs: read()},
		},
	}
	o.mark(r)
	return r
}

// viewRoleBinding grants the view role to every authenticated user and
// every service account: boot images are for everyone to clone.
func (o ownerRef) viewRoleBinding(namespace string) *rbacv1.RoleBinding {
	b := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: ViewRoleName, Namespace: namespace},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.GroupKind, Name: "system:authenticated", APIGroup: rbacv1.GroupName},
			{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts", APIGroup: rbacv1.GroupName},
		},
		RoleRef: rbacv1.RoleRef{Kind: "Role", Name: ViewRoleName, APIGroup: rbacv1.GroupName},
	}
	o.mark(b)
	return b
}

// editRole is bound by nobody here; administrators bind it in the
// boot-image namespace to delegate managing boot images.
func (o ownerRef) editRole() *rbacv1.ClusterRole {
	cdi := cdiv1beta1.SchemeGroupVersion.Group
	r := &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: EditClusterRoleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"persistentvolumeclaims"}, Verbs: readWrite()},
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"persistentvolumeclaims/status"}, Verbs: read()},
			{APIGroups: []string{cdi}, Resources: []string{"datavolumes"}, Verbs: readWrite()},
			{APIGroups: []string{cdi}, Resources: []string{"datavolumes/source"}, Verbs: []string{"create"}},
			{APIGroups: []string{cdi}, Resources: []string{"datasources"}, Verbs: readWrite()},
			{APIGroups: []string{cdi}, Resources: []string{"dataimportcrons"}, Verbs: readWrite()},
		},
	}
	o.mark(r)
	return r
}
