// Package stepenv is what every Tekton step program of tasks/ shares with
// the pod Tekton runs it in: the in-cluster client, the namespace the
// TaskRun runs in, and the results directory. The same step code runs as a
// Temporal activity (the durable tasks), which passes its own client and
// writer instead.
package stepenv

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/scheme"
)

// ResultsDir is where Tekton collects a step's results, one file each.
const ResultsDir = "/tekton/results"

// namespaceFile is the service account's namespace in every pod.
const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Config is the client configuration: in-cluster in a pod, else the
// KUBECONFIG file (running a step by hand).
func Config() (*rest.Config, error) {
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, nil
	}
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the client configuration: %w", err)
	}
	return cfg, nil
}

// Client is a client for every kind virtflow knows, from Config.
func Client() (crclient.Client, *rest.Config, error) {
	cfg, err := Config()
	if err != nil {
		return nil, nil, err
	}
	s, err := scheme.New()
	if err != nil {
		return nil, nil, err
	}
	c, err := crclient.New(cfg, crclient.Options{Scheme: s})
	if err != nil {
		return nil, nil, fmt.Errorf("building the client: %w", err)
	}
	return c, cfg, nil
}

// New is the Env of a step program in its pod: Client's client and
// configuration, the active namespace given, results to ResultsDir and the
// log to log.
func New(namespace string, log io.Writer) (Env, error) {
	c, cfg, err := Client()
	if err != nil {
		return Env{}, err
	}
	return Env{Client: c, Config: cfg, Namespace: namespace, Results: &Results{}, Log: log}, nil
}

// ActiveNamespace is the namespace the step runs in: POD_NAMESPACE when
// set (the Task passes it from the downward API), else the service
// account's, else "default"; upstream's tasks default their namespace
// parameters to it.
func ActiveNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(namespaceFile); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "default"
}

// Result names of the Tasks that make or edit one object and report it
// (create-vm-from-manifest, create-vm-from-template, copy-template,
// modify-vm-template, modify-data-object).
const (
	ResultName      = "name"
	ResultNamespace = "namespace"
)

// Results writes a step's results; the zero value writes to ResultsDir.
type Results struct {
	// Dir replaces ResultsDir when set (tests).
	Dir string
	// Values, when not nil, receives every result instead of files: the
	// durable tasks return them from their activity.
	Values map[string]string
}

// Write records result name as value.
func (r *Results) Write(name, value string) error {
	if r.Values != nil {
		r.Values[name] = value
		return nil
	}
	dir := r.Dir
	if dir == "" {
		dir = ResultsDir
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("writing result %s: %w", name, err)
	}
	return nil
}

// namedObject is what WriteObject reads of an object: every Kubernetes
// object, typed or not, has both.
type namedObject interface {
	GetName() string
	GetNamespace() string
}

// WriteObject records obj's name and namespace as ResultName and
// ResultNamespace.
func (r *Results) WriteObject(obj namedObject) error {
	if err := r.Write(ResultName, obj.GetName()); err != nil {
		return err
	}
	return r.Write(ResultNamespace, obj.GetNamespace())
}
