package networkaddonsconfig

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
)

// IPAMClaimCRDName is the IPAMClaim CRD, installed with the controller as
// upstream's operator installs it where no OVN-Kubernetes brings it.
const IPAMClaimCRDName = "ipamclaims." + ipamv1alpha1.GroupName

// IPAMClaimCRD is the Network Plumbing Working Group's IPAMClaim CRD
// (ipamclaims v0.5.0-alpha): k8s.cni.cncf.io/v1alpha1, namespaced, with a
// status subresource; its schema is api/ipamclaims/v1alpha1's.
func IPAMClaimCRD() *apiextensionsv1.CustomResourceDefinition {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	spec := apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"interface", "network"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"interface": str("The pod interface name for which this allocation was created"),
			"network":   str("The network name for which this persistent allocation was created"),
		}}
	status := apiextensionsv1.JSONSchemaProps{Type: "object", Description: "IPAMClaimStatus contains the observed status of the IPAMClaim.",
		Required: []string{"ips"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"ips": {Type: "array", Description: "The list of IP addresses (v4, v6) that were allocated for the pod interface",
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
			"ownerPod": {Type: "object", Description: "The name of the pod holding the IPAMClaim", Required: []string{"name"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}}},
			"conditions": {Type: "array", Description: "Conditions contains details for one aspect of the current state of this API Resource",
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: conditionSchema()}},
		}}
	schema := &apiextensionsv1.JSONSchemaProps{Type: "object", Description: "IPAMClaim is the Schema for the IPAMClaim API",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": str("APIVersion defines the versioned schema of this representation of an object."),
			"kind":       str("Kind is a string value representing the REST resource this object represents."),
			"metadata":   {Type: "object"},
			"spec":       spec,
			"status":     status,
		}}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: IPAMClaimCRDName},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: ipamv1alpha1.GroupName, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "ipamclaims", Singular: "ipamclaim", Kind: "IPAMClaim", ListKind: "IPAMClaimList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: ipamv1alpha1.SchemeGroupVersion.Version, Served: true, Storage: true,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// conditionSchema is metav1.Condition's, as controller-gen writes it.
func conditionSchema() *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{Type: "object",
		Required: []string{"lastTransitionTime", "message", "reason", "status", "type"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"lastTransitionTime": {Type: "string", Format: "date-time"},
			"message":            {Type: "string", MaxLength: ptr.To(int64(32768))},
			"observedGeneration": {Type: "integer", Format: "int64", Minimum: ptr.To(0.0)},
			"reason":             {Type: "string", MaxLength: ptr.To(int64(1024)), MinLength: ptr.To(int64(1)), Pattern: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`},
			"status":             {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"True"`)}, {Raw: []byte(`"False"`)}, {Raw: []byte(`"Unknown"`)}}},
			"type":               {Type: "string", MaxLength: ptr.To(int64(316)), Pattern: `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`},
		}}
}
