package platform

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/kube/apply"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const fieldOwner = client.FieldOwner("virtflow")

// InstallManifests server-side applies the embedded CRDs and RBAC, and the
// binding of the in-process components' identity (a test harness's own
// control plane runs them all in one process), and waits until every CRD
// is Established.
func InstallManifests(ctx context.Context, cfg *rest.Config) error {
	c, err := newKubeClient(cfg)
	if err != nil {
		return err
	}
	crds, err := deploy.CRDs()
	if err != nil {
		return err
	}
	rbac, err := deploy.RBAC()
	if err != nil {
		return err
	}
	inProcess, err := deploy.InProcessIdentity()
	if err != nil {
		return fmt.Errorf("reading the in-process identity: %w", err)
	}
	var crdNames []string
	for _, set := range []map[string][]byte{crds, rbac, {"inprocess-identity.yaml": inProcess}} {
		for _, name := range deploy.SortedNames(set) {
			objs, err := apply.Manifests(ctx, c, set[name], string(fieldOwner))
			if err != nil {
				return fmt.Errorf("applying %s: %w", name, err)
			}
			for _, o := range objs {
				if o.GetKind() == "CustomResourceDefinition" {
					crdNames = append(crdNames, o.GetName())
				}
			}
		}
	}
	return waitEstablished(ctx, c, crdNames)
}

func waitEstablished(ctx context.Context, c client.Client, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, name := range names {
		for {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, types.NamespacedName{Name: name}, crd); err != nil {
				return fmt.Errorf("reading CRD %s: %w", name, err)
			}
			if established(crd) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established: %w", name, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// NodeRegistry is the node's registry as pods name it: cluster DNS
// answers the name with the node's IP.
const NodeRegistry = "registry.virtflow.local:5000"

// EnsureHyperConverged creates the default HyperConverged unless one exists.
func EnsureHyperConverged(ctx context.Context, cfg *rest.Config) error {
	c, err := newKubeClient(cfg)
	if err != nil {
		return err
	}
	list := &hcov1beta1.HyperConvergedList{}
	if err := c.List(ctx, list); err != nil {
		return fmt.Errorf("listing HyperConverged: %w", err)
	}
	if len(list.Items) > 0 {
		return nil
	}
	hc := &hcov1beta1.HyperConverged{}
	hc.Namespace, hc.Name = Namespace, HCName
	// The node's own registry serves plain HTTP; the test guest's boot
	// source is imported from it.
	hc.Spec.StorageImport = &hcov1beta1.StorageImportConfig{InsecureRegistries: []string{NodeRegistry}}
	if err := c.Create(ctx, hc); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating HyperConverged %s/%s: %w", Namespace, HCName, err)
	}
	return nil
}

// newKubeClient is a direct (uncached) client that knows every virtflow kind.
func newKubeClient(cfg *rest.Config) (client.Client, error) {
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	return c, nil
}
