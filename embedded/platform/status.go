package platform

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.temporal.io/sdk/client"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/conditions"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/worker"
)

var statusKinds = []schema.GroupVersionKind{
	{Group: "hco.kubevirt.io", Version: "v1beta1", Kind: "HyperConverged"},
	{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"},
	{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"},
	{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
	{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
	{Group: "hostpathprovisioner.kubevirt.io", Version: "v1beta1", Kind: "HostPathProvisioner"},
}

// Status prints whether the platform is up and each component's Available
// condition; it fails when the platform is not reachable.
func Status(ctx context.Context, dataDir string, out io.Writer) error {
	ep, err := ReadEndpoints(dataDir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", ep.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", ep.Kubeconfig, err)
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return err
	}
	c, err := crclient.New(cfg, crclient.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("kubernetes API at %s is not reachable: %w", cfg.Host, err)
	}
	fmt.Fprintf(out, "Kubernetes API   %s  up\n", cfg.Host)
	opts, err := ep.TemporalTLS().Options(ep.TemporalAddress, worker.DefaultNamespace)
	if err != nil {
		return err
	}
	tc, err := client.Dial(opts)
	if err == nil {
		_, err = tc.CheckHealth(ctx, &client.CheckHealthRequest{})
		tc.Close()
	}
	if err != nil {
		return fmt.Errorf("temporal at %s is not reachable: %w", ep.TemporalAddress, err)
	}
	fmt.Fprintf(out, "Temporal         %s  up (Web UI %s)\n", ep.TemporalAddress, ep.TemporalUI)
	for _, gvk := range statusKinds {
		if err := printKind(ctx, c, gvk, out); err != nil {
			return err
		}
	}
	return nil
}

func printKind(ctx context.Context, c crclient.Client, gvk schema.GroupVersionKind, out io.Writer) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.List(ctx, list); err != nil {
		return fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	for _, item := range list.Items {
		state := "Available=Unknown"
		if cond, ok := conditions.Find(conditions.Of(&item), "Available"); ok {
			state = fmt.Sprintf("Available=%s", cond.Status)
			if cond.Status != "True" && cond.Message != "" {
				state += " (" + cond.Message + ")"
			}
		}
		fmt.Fprintf(out, "%-20s %-40s %s\n", gvk.Kind, item.GetName(), state)
	}
	return nil
}
