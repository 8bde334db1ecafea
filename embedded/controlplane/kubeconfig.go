package controlplane

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigs maps the file name to the client certificate it authenticates with.
var kubeconfigs = map[string]string{
	"kubeconfig":                    "admin",
	"controller-manager.kubeconfig": "controller-manager",
	"scheduler.kubeconfig":          "scheduler",
	"virtflow.kubeconfig":           "virtflow",
}

// writeKubeconfigs writes self-contained kubeconfigs (certificates inline) so
// the admin one can be copied elsewhere and still work.
func (cp *ControlPlane) writeKubeconfigs() error {
	for file, cred := range kubeconfigs {
		if err := cp.writeKubeconfig(file, cred); err != nil {
			return err
		}
	}
	cp.kubeconfig = cp.path("kubeconfig")
	return nil
}

// writeKubeconfig writes the kubeconfig file for the client certificate
// pki/<cred>.crt.
func (cp *ControlPlane) writeKubeconfig(file, cred string) error {
	ca, err := os.ReadFile(cp.path("pki", "ca.crt"))
	if err != nil {
		return fmt.Errorf("reading cluster CA: %w", err)
	}
	cert, err := os.ReadFile(cp.path("pki", cred+".crt"))
	if err != nil {
		return fmt.Errorf("reading %s certificate: %w", cred, err)
	}
	key, err := os.ReadFile(cp.path("pki", cred+".key"))
	if err != nil {
		return fmt.Errorf("reading %s key: %w", cred, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["virtflow"] = &clientcmdapi.Cluster{Server: cp.Server(), CertificateAuthorityData: ca}
	cfg.AuthInfos[cred] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["virtflow"] = &clientcmdapi.Context{Cluster: "virtflow", AuthInfo: cred}
	cfg.CurrentContext = "virtflow"
	if err := clientcmd.WriteToFile(*cfg, cp.path(file)); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}
