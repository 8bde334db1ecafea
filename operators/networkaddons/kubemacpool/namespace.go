package kubemacpool

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// VMWebhookName is the VirtualMachine webhook's name; it is also the
// namespace label that opts a namespace in ("allocate") or out ("ignore").
const VMWebhookName = "mutatevirtualmachines.kubemacpool.io"

// OptMode is how the webhook's namespaceSelector treats unlabelled
// namespaces.
type OptMode string

const (
	// OptOut manages every namespace not labelled "ignore":
	// cluster-network-addons-operator's default for VirtualMachines.
	OptOut OptMode = "Opt-out"
	// OptIn manages only namespaces labelled "allocate".
	OptIn OptMode = "Opt-in"
)

// runLevelLabels mark the cluster's own namespaces, which the webhook's
// selector always leaves alone so a broken kubemacpool cannot block them.
var runLevelLabels = []string{"runlevel", "openshift.io/run-level"}

// NamespaceManaged says whether VMs in a namespace with these labels get
// MACs from the pool, as the webhook's namespaceSelector would decide.
func NamespaceManaged(mode OptMode, labels map[string]string) bool {
	for _, key := range runLevelLabels {
		if v := labels[key]; v == "0" || v == "1" {
			return false
		}
	}
	if mode == OptIn {
		return labels[VMWebhookName] == "allocate"
	}
	return labels[VMWebhookName] != "ignore"
}

// NamespaceSelector is the webhook's namespaceSelector for mode, the same
// decision NamespaceManaged takes, so the API server and the pool agree on
// which namespaces are managed.
func NamespaceSelector(mode OptMode) *metav1.LabelSelector {
	var exprs []metav1.LabelSelectorRequirement
	for _, key := range runLevelLabels {
		exprs = append(exprs, metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"0", "1"}})
	}
	if mode == OptIn {
		exprs = append(exprs, metav1.LabelSelectorRequirement{Key: VMWebhookName, Operator: metav1.LabelSelectorOpIn, Values: []string{"allocate"}})
	} else {
		exprs = append(exprs, metav1.LabelSelectorRequirement{Key: VMWebhookName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"ignore"}})
	}
	return &metav1.LabelSelector{MatchExpressions: exprs}
}
