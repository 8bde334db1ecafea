package virtctl

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/virtflow/virtflow/wire/launcherpod"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// exposeFlags are the `expose` options, with upstream's names and defaults.
type exposeFlags struct {
	name, clusterIP, externalIP, portName string
	protocol, targetPort, serviceType     string
	ipFamily, ipFamilyPolicy              string
	port                                  int
	parsedProtocol                        corev1.Protocol
	parsedType                            corev1.ServiceType
	parsedFamilies                        []corev1.IPFamily
	parsedPolicy                          corev1.IPFamilyPolicy
}

// exposedObject is what a Service for a VM, VMI or replica set is built
// from.
type exposedObject struct {
	selector map[string]string
	ports    []corev1.ServicePort
	owner    metav1.OwnerReference
}

// expose creates a Service that selects a VM's, VMI's or VMI replica set's
// launcher pods.
func (c *command) expose(ctx context.Context, args []string) error {
	f, pos, err := c.parseExposeFlags(args)
	if err != nil {
		return err
	}
	vmType, name := strings.ToLower(pos[0]), pos[1]
	obj, err := c.exposedObject(ctx, vmType, name)
	if err != nil {
		return err
	}
	if f.port != 0 {
		obj.ports = []corev1.ServicePort{{Name: f.portName, Protocol: f.parsedProtocol,
			Port: int32(f.port), TargetPort: intstr.Parse(f.targetPort)}}
	}
	if len(obj.ports) == 0 {
		return errors.New("couldn't find port via --port flag or introspection")
	}
	svc, err := json.Marshal(f.service(c.namespace, obj))
	if err != nil {
		return fmt.Errorf("encoding the service: %w", err)
	}
	err = c.client.Post().AbsPath("/api/v1/namespaces", c.namespace, "services").
		SetHeader("Content-Type", "application/json").Body(svc).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("service creation failed: %v", err)
	}
	fmt.Fprintf(c.out, "Service %s successfully created for %s %s\n", f.name, vmType, name)
	return nil
}

func (c *command) parseExposeFlags(args []string) (*exposeFlags, []string, error) {
	f := &exposeFlags{}
	fs := flag.NewFlagSet("expose", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.name, "name", "", "name of the service created for the exposure of the VM")
	fs.StringVar(&f.clusterIP, "cluster-ip", "", "ClusterIP of the service; None makes a headless service")
	fs.StringVar(&f.externalIP, "external-ip", "", "additional external IP address to accept for the service")
	fs.IntVar(&f.port, "port", 0, "the port that the service should serve on")
	fs.StringVar(&f.protocol, "protocol", "TCP", "the network protocol for the service")
	fs.StringVar(&f.targetPort, "target-port", "", "name or number of the VM's port the service directs traffic to")
	fs.StringVar(&f.serviceType, "type", "ClusterIP", "type of the service: ClusterIP, NodePort, or LoadBalancer")
	fs.StringVar(&f.portName, "port-name", "", "name of the port")
	fs.StringVar(&f.ipFamily, "ip-family", "", "IPv4, IPv6, IPv4,IPv6 or IPv6,IPv4")
	fs.StringVar(&f.ipFamilyPolicy, "ip-family-policy", "", "SingleStack, PreferDualStack or RequireDualStack")
	namespaceFlags(fs, &c.namespace)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(pos) != 2 {
		return nil, nil, fmt.Errorf("accepts 2 arg(s), received %d", len(pos))
	}
	if f.name == "" {
		return nil, nil, errors.New(`required flag(s) "name" not set`)
	}
	return f, pos, f.convert()
}

// convert checks the enumerated flags in upstream's order.
func (f *exposeFlags) convert() error {
	var err error
	if f.parsedProtocol, err = convertProtocol(f.protocol); err != nil {
		return err
	}
	if f.parsedType, err = convertServiceType(f.serviceType); err != nil {
		return err
	}
	if f.parsedFamilies, err = convertIPFamily(f.ipFamily); err != nil {
		return err
	}
	f.parsedPolicy, err = convertIPFamilyPolicy(f.ipFamilyPolicy, f.parsedFamilies)
	return err
}

// service is the Service to create, owned by the exposed object so that
// it goes with it.
func (f *exposeFlags) service(namespace string, obj *exposedObject) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Name: f.name, Namespace: namespace,
			OwnerReferences: []metav1.OwnerReference{obj.owner},
		},
		Spec: corev1.ServiceSpec{
			Ports: obj.ports, Selector: obj.selector, ClusterIP: f.clusterIP,
			Type: f.parsedType, IPFamilies: f.parsedFamilies,
		},
	}
	if f.externalIP != "" {
		svc.Spec.ExternalIPs = []string{f.externalIP}
	}
	if f.parsedPolicy != "" {
		svc.Spec.IPFamilyPolicy = ptr.To(f.parsedPolicy)
	}
	return svc
}

// exposedObject reads the named object and derives the Service's selector,
// ports and owner from it.
func (c *command) exposedObject(ctx context.Context, vmType, name string) (*exposedObject, error) {
	switch vmType {
	case "vmi", "vmis", "virtualmachineinstance", "virtualmachineinstances":
		vmi := &kubevirtv1.VirtualMachineInstance{}
		if err := c.getKubeVirt(ctx, "virtualmachineinstances", name, vmi); err != nil {
			return nil, fmt.Errorf("error fetching VirtualMachineInstance: %v", err)
		}
		return instanceExposed(&vmi.ObjectMeta, "VirtualMachineInstance", &vmi.Spec), nil
	case "vm", "vms", "virtualmachine", "virtualmachines":
		vm := &kubevirtv1.VirtualMachine{}
		if err := c.getKubeVirt(ctx, "virtualmachines", name, vm); err != nil {
			return nil, fmt.Errorf("error fetching VirtualMachine: %v", err)
		}
		var spec *kubevirtv1.VirtualMachineInstanceSpec
		if vm.Spec.Template != nil {
			spec = &vm.Spec.Template.Spec
		}
		return instanceExposed(&vm.ObjectMeta, "VirtualMachine", spec), nil
	case "vmirs", "vmirss", "virtualmachineinstancereplicaset", "virtualmachineinstancereplicasets":
		return c.replicaSetExposed(ctx, name)
	}
	return nil, fmt.Errorf("unsupported resource type: %s", vmType)
}

// instanceExposed selects the launcher pod of a VM's or VMI's one instance
// by the vmi.kubevirt.io/id label virt-controller puts on it.
func instanceExposed(meta *metav1.ObjectMeta, kind string, spec *kubevirtv1.VirtualMachineInstanceSpec) *exposedObject {
	return &exposedObject{
		selector: map[string]string{kubevirtv1.VirtualMachineInstanceIDLabel: launcherpod.InstanceID(meta.Name)},
		ports:    podNetworkPorts(spec),
		owner:    ownerRef(meta, kind),
	}
}

func (c *command) replicaSetExposed(ctx context.Context, name string) (*exposedObject, error) {
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	if err := c.getKubeVirt(ctx, "virtualmachineinstancereplicasets", name, rs); err != nil {
		return nil, fmt.Errorf("error fetching VirtualMachineInstanceReplicaSet: %v", err)
	}
	if rs.Spec.Selector == nil || len(rs.Spec.Selector.MatchLabels) == 0 {
		return nil, errors.New("cannot expose VirtualMachineInstanceReplicaSet without any selector labels")
	}
	if len(rs.Spec.Selector.MatchExpressions) > 0 {
		return nil, errors.New("cannot expose VirtualMachineInstanceReplicaSet with match expressions")
	}
	var spec *kubevirtv1.VirtualMachineInstanceSpec
	if rs.Spec.Template != nil {
		spec = &rs.Spec.Template.Spec
	}
	return &exposedObject{
		selector: rs.Spec.Selector.MatchLabels,
		ports:    podNetworkPorts(spec),
		owner:    ownerRef(&rs.ObjectMeta, "VirtualMachineInstanceReplicaSet"),
	}, nil
}

// getKubeVirt reads a kubevirt.io/v1 object of the command's namespace.
func (c *command) getKubeVirt(ctx context.Context, resource, name string, into any) error {
	res := c.client.Get().AbsPath("/apis/kubevirt.io/v1/namespaces", c.namespace, resource, name).Do(ctx)
	// Error, unlike Raw, reports the API server's Status message, as
	// upstream's typed client does.
	if err := res.Error(); err != nil {
		return err
	}
	raw, err := res.Raw()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("decoding %s %s: %w", resource, name, err)
	}
	return nil
}

// ownerRef makes the object the Service's controller, without blocking
// the object's deletion on the Service's.
func ownerRef(meta *metav1.ObjectMeta, kind string) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: kubevirtv1.SchemeGroupVersion.String(), Kind: kind,
		Name: meta.Name, UID: meta.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false),
	}
}

// podNetworkPorts are the ports declared on the interface of the pod
// network, named port-1, port-2...
func podNetworkPorts(spec *kubevirtv1.VirtualMachineInstanceSpec) []corev1.ServicePort {
	if spec == nil {
		return nil
	}
	podNetwork := ""
	for _, n := range spec.Networks {
		if n.Pod != nil {
			podNetwork = n.Name
			break
		}
	}
	if podNetwork == "" {
		return nil
	}
	for _, iface := range spec.Domain.Devices.Interfaces {
		if iface.Name != podNetwork {
			continue
		}
		ports := []corev1.ServicePort{}
		for i, p := range iface.Ports {
			ports = append(ports, corev1.ServicePort{Name: fmt.Sprintf("port-%d", i+1), Protocol: corev1.Protocol(p.Protocol), Port: p.Port})
		}
		return ports
	}
	return nil
}
