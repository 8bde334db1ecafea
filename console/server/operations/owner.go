package operations

import (
	"fmt"
	"sort"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/virt"
)

// Owner is the Kubernetes object an operation works for: whoever may get
// it sees the operation, whoever may delete it may cancel the operation.
type Owner struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	// Name is empty where the workflow does not record it (a CustomRun's
	// durable task): access is then asked for the whole namespace.
	Name string `json:"name,omitempty"`
}

// The kinds operations belong to, as the frontend links to them.
var kinds = map[string]Owner{
	"DataVolume":            {Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataVolume", Resource: "datavolumes"},
	"PersistentVolumeClaim": {Group: "", Version: "v1", Kind: "PersistentVolumeClaim", Resource: "persistentvolumeclaims"},
	"DataImportCron":        {Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataImportCron", Resource: "dataimportcrons"},
	"HyperConverged":        {Group: "hco.kubevirt.io", Version: "v1beta1", Kind: "HyperConverged", Resource: "hyperconvergeds"},
	"CustomRun":             {Group: "tekton.dev", Version: "v1beta1", Kind: "CustomRun", Resource: "customruns"},
	"VirtualMachineInstanceMigration": {Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachineInstanceMigration",
		Resource: "virtualmachineinstancemigrations"},
}

// ownerKinds are, per workflow type, the kinds its owner may be.
var ownerKinds = map[string][]string{
	cdi.ImportWorkflowName:              {"DataVolume", "PersistentVolumeClaim"},
	cdi.UploadWorkflowName:              {"DataVolume"},
	cdi.CloneWorkflowName:               {"DataVolume"},
	cdi.PollCronWorkflowName:            {"DataImportCron"},
	hco.InstallWorkflowName:             {"HyperConverged"},
	hco.UninstallWorkflowName:           {"HyperConverged"},
	ssp.RunTektonTaskWorkflowName:       {"CustomRun"},
	ssp.RunTemplatePipelineWorkflowName: {"CustomRun"},
	virt.MigrateWorkflowName:            {"VirtualMachineInstanceMigration"},
}

// typesOf returns the workflow types whose owner may be of the kind.
func typesOf(kind string) []string {
	var out []string
	for typ, ks := range ownerKinds {
		for _, k := range ks {
			if k == kind {
				out = append(out, typ)
			}
		}
	}
	sort.Strings(out)
	return out
}

// startInput holds, across the workflow types, the input fields that
// name the owner. Matching is case-insensitive, which covers hco's
// untagged HyperConverged reference too.
type startInput struct {
	// DataVolume is "namespace/name" of an import's, upload's or clone's.
	DataVolume string `json:"dataVolume"`
	Request    struct {
		Claim string `json:"claim"`
	} `json:"request"`
	HyperConverged struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"hyperConverged"`
	// Migration is a live migration's VMIM.
	Migration struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"migration"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// ownerOf derives the owner from the workflow's type and its first input:
// no operator records the owner in a memo or search attribute, so the
// input, which every start names it in, is where it is read. Nil for a
// type the console does not know.
func ownerOf(typ string, input *commonpb.Payload) (*Owner, error) {
	if _, known := ownerKinds[typ]; !known || input == nil {
		return nil, nil
	}
	var in startInput
	if err := converter.GetDefaultDataConverter().FromPayload(input, &in); err != nil {
		return nil, fmt.Errorf("decoding the input of a %s workflow: %w", typ, err)
	}
	switch typ {
	case cdi.ImportWorkflowName, cdi.UploadWorkflowName, cdi.CloneWorkflowName:
		return volumeOwner(typ, in), nil
	case cdi.PollCronWorkflowName:
		return owned("DataImportCron", in.Namespace, in.Name), nil
	case hco.InstallWorkflowName, hco.UninstallWorkflowName:
		return owned("HyperConverged", in.HyperConverged.Namespace, in.HyperConverged.Name), nil
	case virt.MigrateWorkflowName:
		return owned("VirtualMachineInstanceMigration", in.Migration.Namespace, in.Migration.Name), nil
	default: // the SSP workflows: the CustomRun's name is in no input
		return owned("CustomRun", in.Namespace, ""), nil
	}
}

// volumeOwner tells a DataVolume's import from a populated claim's: a
// DataVolume's claim has its name, while the volume populator fills a
// "prime" claim for the user's claim.
func volumeOwner(typ string, in startInput) *Owner {
	ns, name, _ := strings.Cut(in.DataVolume, "/")
	if typ == cdi.ImportWorkflowName && in.Request.Claim != "" && in.Request.Claim != name {
		return owned("PersistentVolumeClaim", ns, name)
	}
	return owned("DataVolume", ns, name)
}

func owned(kind, namespace, name string) *Owner {
	o := kinds[kind]
	o.Namespace, o.Name = namespace, name
	return &o
}
