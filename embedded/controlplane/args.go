package controlplane

import (
	"fmt"
	"net"
	"strconv"
)

// The peer port sits next to the client port so a resumed etcd finds the
// peer URL its member record was created with.
func (cp *ControlPlane) etcdPeerURL() string {
	return "http://" + hostPort(cp.cfg.EtcdPort+1)
}

func (cp *ControlPlane) etcdURL() string { return "http://" + hostPort(cp.cfg.EtcdPort) }

func (cp *ControlPlane) etcdArgs() []string {
	return []string{
		"--name=virtflow",
		"--data-dir=" + cp.path("etcd"),
		"--listen-client-urls=" + cp.etcdURL(),
		"--advertise-client-urls=" + cp.etcdURL(),
		"--listen-peer-urls=" + cp.etcdPeerURL(),
		"--initial-advertise-peer-urls=" + cp.etcdPeerURL(),
		"--initial-cluster=virtflow=" + cp.etcdPeerURL(),
		"--listen-metrics-urls=http://" + hostPort(freePort()),
		// A developer cluster on a shared disk: fsync latency dominates, and
		// losing the last write on a host crash is acceptable here.
		"--unsafe-no-fsync",
		"--quota-backend-bytes=4294967296",
		"--log-level=warn",
	}
}

func (cp *ControlPlane) apiserverArgs() []string {
	pki := func(f string) string { return cp.path("pki", f) }
	return []string{
		"--etcd-servers=" + cp.etcdURL(),
		"--bind-address=" + cp.cfg.Address,
		"--advertise-address=" + cp.cfg.Address,
		"--secure-port=" + strconv.Itoa(cp.cfg.APIServerPort),
		"--tls-cert-file=" + pki("apiserver.crt"),
		"--tls-private-key-file=" + pki("apiserver.key"),
		"--client-ca-file=" + pki("ca.crt"),
		"--service-account-key-file=" + pki("sa.pub"),
		"--service-account-signing-key-file=" + pki("sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + cp.cfg.ServiceClusterIPRange,
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--enable-admission-plugins=NamespaceLifecycle,NodeRestriction,ServiceAccount,DefaultStorageClass,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,ResourceQuota,PodSecurity",
		"--admission-control-config-file=" + cp.path("admission.yaml"),
		// Kubelets serve with certificates from the cluster CA (see
		// NodeCredentials), so the API server verifies them.
		"--kubelet-client-certificate=" + pki("apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + pki("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority=" + pki("ca.crt"),
		"--kubelet-preferred-address-types=InternalIP,Hostname",
		// Aggregated APIs (subresources.kubevirt.io) are reached through the
		// front proxy identity below.
		"--requestheader-client-ca-file=" + pki("front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		"--proxy-client-cert-file=" + pki("front-proxy-client.crt"),
		"--proxy-client-key-file=" + pki("front-proxy-client.key"),
		"--endpoint-reconciler-type=" + cp.endpointReconciler(),
		"--profiling=false",
		"--v=1",
	}
}

func (cp *ControlPlane) controllerManagerArgs() []string {
	kc := cp.path("controller-manager.kubeconfig")
	return []string{
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=" + host,
		"--secure-port=" + strconv.Itoa(freePort()),
		"--leader-elect=false",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + cp.path("pki", "sa.key"),
		"--root-ca-file=" + cp.path("pki", "ca.crt"),
		"--cluster-signing-cert-file=" + cp.path("pki", "ca.crt"),
		"--cluster-signing-key-file=" + cp.path("pki", "ca.key"),
		"--service-cluster-ip-range=" + cp.cfg.ServiceClusterIPRange,
		// Node IPAM: each node's pod network, a /24 of the cluster's.
		"--allocate-node-cidrs=true",
		"--cluster-cidr=" + cp.cfg.ClusterCIDR,
		"--node-cidr-mask-size=24",
		"--controllers=*",
		"--v=1",
	}
}

func (cp *ControlPlane) schedulerArgs() []string {
	kc := cp.path("scheduler.kubeconfig")
	return []string{
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=" + host,
		"--secure-port=" + strconv.Itoa(freePort()),
		"--leader-elect=false",
		fmt.Sprintf("--v=%d", 1),
	}
}

// endpointReconciler publishes the kubernetes Service's endpoints only when
// pods can reach the address: the reconciler refuses a loopback one.
func (cp *ControlPlane) endpointReconciler() string {
	if net.ParseIP(cp.cfg.Address).IsLoopback() {
		return "none"
	}
	return "lease"
}
