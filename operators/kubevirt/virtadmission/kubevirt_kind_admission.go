package virtadmission

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// decodeKubevirtKind decodes a request for resource of kubevirt.io in any
// version upstream's webhooks accept, or says why not (400, as upstream).
// Plain JSON: every served version has the v1 schema, and the scheme
// knows only v1.
func decodeKubevirtKind(req admission.Request, resource string, obj any) *admission.Response {
	r := req.Resource
	if r.Group != kubevirtv1.GroupVersion.Group || r.Resource != resource || !slices.Contains(kubevirtv1.ApiSupportedWebhookVersions, r.Version) {
		resp := admission.Errored(http.StatusBadRequest, fmt.Errorf("expect resource to be '%s'", resource))
		return &resp
	}
	if err := json.Unmarshal(req.Object.Raw, obj); err != nil {
		resp := admission.Errored(http.StatusBadRequest, err)
		return &resp
	}
	return nil
}

// kubevirtKindRules are upstream's rules for a kubevirt.io resource:
// CREATE and UPDATE in every version it serves.
func kubevirtKindRules(resource string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: createUpd, Rule: admissionregistrationv1.Rule{
		APIGroups: []string{kubevirtv1.GroupVersion.Group}, APIVersions: slices.Clone(kubevirtv1.ApiSupportedWebhookVersions), Resources: []string{resource},
	}}}
}
