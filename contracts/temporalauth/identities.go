// Package temporalauth names who may call virtflow's Temporal and what each
// may do. Every client proves who it is with a certificate whose subject
// common name is one of the identities below; the embedded server's
// authorizer (embedded/temporal) grants each the calls Policy lists and
// refuses everything else. Clients, `virtflow up` and the operators share
// the names and the Secret each identity's certificate is handed out in.
// It has no side effects and no dependency on Temporal's server.
package temporalauth

// Identities: the subject common names of the client certificates.
const (
	// Admin may do everything: `virtflow up`, the CLI, the integration
	// tests. Its certificate never leaves the host.
	Admin = "virtflow-admin"
	// ControlWorker runs the workflows and activities of the control task
	// queue.
	ControlWorker = "virtflow-control-worker"
	// NodeWorker is virt-handler's node worker: the disk activities of its
	// node's task queue.
	NodeWorker = "virtflow-node-worker"
	// HCOOperator starts the HyperConverged install and uninstall.
	HCOOperator = "hco-operator"
	// CDIDeployment starts imports, uploads and clones, and owns the
	// DataImportCrons' schedules.
	CDIDeployment = "cdi-deployment"
	// SSPOperator runs the durable tasks' CustomRun controller.
	SSPOperator = "ssp-operator"
	// Console shows operations and cancels them for users the Kubernetes
	// API allows to.
	Console = "virtflow-console"
	// UploadProxy reads only.
	UploadProxy = "cdi-uploadproxy"
	// VirtController starts, watches and cancels live migrations.
	VirtController = "virt-controller"
)

// Namespace is the Temporal namespace virtflow's workflows live in
// (worker.DefaultNamespace).
const Namespace = "virtflow"

// ControlTaskQueue is the control worker's task queue
// (worker.ControlTaskQueue), where every workflow runs.
const ControlTaskQueue = "virtflow-control"

// The keys of an identity's Secret, as a kubernetes.io/tls Secret names
// them, with the CA that signs the frontend's certificate beside them.
const (
	CertKey = "tls.crt"
	KeyKey  = "tls.key"
	CAKey   = "ca.crt"
)

// CertDir is where a pod mounts its identity's Secret.
const CertDir = "/etc/virtflow/temporal"

// secrets are the Secrets in-cluster identities' certificates are handed
// out in, in the platform's namespace; the admin's stays on the host.
var secrets = map[string]string{
	ControlWorker: "virtflow-temporal-control-worker",
	NodeWorker:    "virtflow-temporal-node-worker",
	HCOOperator:   "virtflow-temporal-hco-operator",
	CDIDeployment: "virtflow-temporal-cdi-deployment",
	SSPOperator:   "virtflow-temporal-ssp-operator",
	Console:       "virtflow-temporal-console",
	UploadProxy:   "virtflow-temporal-cdi-uploadproxy",
	// VirtController: KubeVirt's controller, one per migration workflow.
	VirtController: "virtflow-temporal-virt-controller",
}

// SecretName is the Secret holding identity's certificate, key and the
// CA; "" for an identity that is not handed to pods.
func SecretName(identity string) string { return secrets[identity] }

// InCluster are the identities whose certificates pods use, sorted.
func InCluster() []string {
	return []string{CDIDeployment, UploadProxy, HCOOperator, SSPOperator, Console, ControlWorker, NodeWorker, VirtController}
}
