package templateprocess

import "k8s.io/apimachinery/pkg/runtime/schema"

// legacyKindGroups lists, per API group, the OpenShift kinds that old
// templates address with the group-less apiVersion "v1" (the legacy
// /oapi API). library-go's legacygroupification moves them into their
// group so that current servers accept them; the lists are its lists.
var legacyKindGroups = map[string][]string{
	"apps.openshift.io": {
		"DeploymentConfigRollback", "DeploymentConfig", "DeploymentConfigList",
		"DeploymentLog", "DeploymentRequest",
	},
	"authorization.openshift.io": {
		"ClusterRoleBinding", "ClusterRoleBindingList", "ClusterRole", "ClusterRoleList",
		"RoleBindingRestriction", "RoleBindingRestrictionList", "RoleBinding", "RoleBindingList",
		"Role", "RoleList", "SubjectRulesReview", "SelfSubjectRulesReview",
		"ResourceAccessReview", "LocalResourceAccessReview",
		"SubjectAccessReview", "LocalSubjectAccessReview",
	},
	"build.openshift.io": {
		"BuildConfig", "BuildConfigList", "Build", "BuildList",
		"BinaryBuildRequestOptions", "BuildLog", "BuildRequest",
	},
	"image.openshift.io": {
		"Image", "ImageList", "ImageSignature", "ImageStreamImage", "ImageStreamImport",
		"ImageStreamMapping", "ImageStream", "ImageStreamList", "ImageStreamTag", "ImageStreamTagList",
	},
	"network.openshift.io": {
		"ClusterNetwork", "ClusterNetworkList", "EgressNetworkPolicy", "EgressNetworkPolicyList",
		"HostSubnet", "HostSubnetList", "NetNamespace", "NetNamespaceList",
	},
	"oauth.openshift.io": {
		"OAuthAccessToken", "OAuthAccessTokenList", "OAuthAuthorizeToken", "OAuthAuthorizeTokenList",
		"OAuthClientAuthorization", "OAuthClientAuthorizationList", "OAuthClient", "OAuthClientList",
	},
	"project.openshift.io": {"Project", "ProjectList", "ProjectRequest"},
	"quota.openshift.io": {
		"ClusterResourceQuota", "ClusterResourceQuotaList",
		"AppliedClusterResourceQuota", "AppliedClusterResourceQuotaList",
	},
	"route.openshift.io": {"Route", "RouteList"},
	"security.openshift.io": {
		"SecurityContextConstraints", "SecurityContextConstraintsList",
		"PodSecurityPolicySubjectReview", "PodSecurityPolicySelfSubjectReview", "PodSecurityPolicyReview",
	},
	"template.openshift.io": {"Template", "TemplateList"},
	"user.openshift.io": {
		"Group", "GroupList", "Identity", "IdentityList", "UserIdentityMapping", "User", "UserList",
	},
}

// legacyKindGroup is legacyKindGroups indexed by kind.
var legacyKindGroup = indexKinds(legacyKindGroups)

func indexKinds(groups map[string][]string) map[string]string {
	byKind := map[string]string{}
	for group, kinds := range groups {
		for _, kind := range kinds {
			byKind[kind] = group
		}
	}
	return byKind
}

// groupify gives a group-less legacy OpenShift kind its group, keeping
// everything else as it is.
func groupify(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	if gvk.Group != "" {
		return gvk
	}
	if group, ok := legacyKindGroup[gvk.Kind]; ok {
		gvk.Group = group
	}
	return gvk
}
