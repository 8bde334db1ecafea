package customrun

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// workflowFor is the workflow type a CustomRun runs and its input, which
// names the CustomRun (the activity reads its service account from it).
// An error is the CustomRun's own mistake: the run fails with it.
func workflowFor(u *unstructured.Unstructured, r run) (string, any, error) {
	if r.Spec.CustomRef == nil || r.Spec.CustomRef.Name == "" {
		return "", nil, errors.New("a durable task is referenced by name (taskRef.name); embedded specs are not supported")
	}
	params, err := r.params()
	if err != nil {
		return "", nil, err
	}
	name, namespace, uid := r.Spec.CustomRef.Name, u.GetNamespace(), string(u.GetUID())
	if r.Spec.CustomRef.Kind == ssp.KindDurableTask {
		req := ssp.TaskRequest{Task: name, Namespace: namespace, ServiceAccount: r.serviceAccount(), Params: params,
			CustomRun: u.GetName(), CustomRunUID: uid}
		return ssp.RunTektonTaskWorkflowName, req, nil
	}
	if name != ssp.TemplatePipelineName {
		return "", nil, fmt.Errorf("no durable pipeline %q: the durable pipelines are %s", name, ssp.TemplatePipelineName)
	}
	in, err := serverDeployer(namespace, r.serviceAccount(), params)
	in.CustomRun, in.CustomRunUID = u.GetName(), uid
	return ssp.RunTemplatePipelineWorkflowName, in, err
}

// The server-deployer Pipeline's params and their defaults
// (tasks/manifests/pipelines/server-deployer.yaml).
const (
	pipelineParamVMName            = "vmName"
	pipelineParamTemplateName      = "templateName"
	pipelineParamTemplateNamespace = "templateNamespace"
	pipelineParamSecretName        = "secretName"
	pipelineParamCommand           = "command"
	defaultTemplateName            = "virtflow-test-guest-server-small"
	defaultTemplateNamespace       = "openshift"
)

var defaultCommand = []string{"uname", "-a"}

// serverDeployer passes the server-deployer Pipeline's params to its
// tasks as the Pipeline does.
func serverDeployer(namespace, sa string, p ssp.Params) (ssp.TemplatePipelineInput, error) {
	str := func(name, def string) string {
		if v, ok := p.Strings[name]; ok {
			return v
		}
		return def
	}
	secret, ok := p.Strings[pipelineParamSecretName]
	if !ok {
		return ssp.TemplatePipelineInput{}, fmt.Errorf("pipeline %s: missing values for these params which have no default values: [%s]",
			ssp.TemplatePipelineName, pipelineParamSecretName)
	}
	command, ok := p.Arrays[pipelineParamCommand]
	if !ok {
		command = defaultCommand
	}
	return ssp.TemplatePipelineInput{
		Namespace: namespace, ServiceAccount: sa,
		CreateVM: ssp.Params{
			Strings: map[string]string{"templateName": str(pipelineParamTemplateName, defaultTemplateName),
				"templateNamespace": str(pipelineParamTemplateNamespace, defaultTemplateNamespace), "runStrategy": "Always"},
			Arrays: map[string][]string{"templateParams": {"NAME:" + str(pipelineParamVMName, "")}},
		},
		WaitForVMI: ssp.Params{Strings: map[string]string{
			"successCondition": "status.phase == Running", "failureCondition": "status.phase in (Failed, Unknown)"}},
		ExecuteInVM: ssp.Params{Strings: map[string]string{"secretName": secret}, Arrays: map[string][]string{"command": command}},
		CleanupVM:   ssp.Params{Strings: map[string]string{"delete": "true"}},
	}, nil
}
