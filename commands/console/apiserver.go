package console

import (
	"errors"
	"fmt"
	"net"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// inClusterCA is where a pod finds the cluster's CA when its service
// account is mounted; a pod without one mounts kube-root-ca.crt there or
// elsewhere and says so with --apiserver-ca.
const inClusterCA = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"

// apiserver locates the kube-apiserver: from the kubeconfig, or in a pod
// from the Service environment and the CA alone. Unlike client-go's
// in-cluster configuration it needs no service account token, since the
// console acts only as its users: its pod can run without one.
func apiserver(o options) (*rest.Config, error) {
	if o.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("loading kubeconfig %s: %w", o.kubeconfig, err)
		}
		return cfg, nil
	}
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("no --kubeconfig and not in a pod ($KUBERNETES_SERVICE_HOST and _PORT unset): the kube-apiserver is nowhere to be found")
	}
	if _, err := os.Stat(o.apiserverCA); err != nil {
		return nil, fmt.Errorf("the kube-apiserver's CA: %w", err)
	}
	return &rest.Config{Host: "https://" + net.JoinHostPort(host, port), TLSClientConfig: rest.TLSClientConfig{CAFile: o.apiserverCA}}, nil
}
