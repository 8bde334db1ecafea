package virtapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// portForward serves the portforward subresource of a VMI, or of a VM's
// running instance: virt-api dials the port at the VMI's address, as
// upstream's does (a masquerade pod forwards it to the guest), and relays
// it as a websocket of binary frames.
func (s *Server) portForward(ofVM bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := r.PathValue("ns"), r.PathValue("name")
		vmi, err := s.portForwardTarget(r.Context(), ns, name, ofVM)
		if err != nil {
			writeError(w, err)
			return
		}
		conn, err := dialVMI(r.Context(), vmi, r.PathValue("port"), r.PathValue("protocol"))
		if err != nil {
			writeError(w, err)
			return
		}
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			conn.Close()
			return
		}
		bridge(ws, conn)
	}
}

// portForwardTarget finds the running VMI, with upstream's refusals.
func (s *Server) portForwardTarget(ctx context.Context, ns, name string, ofVM bool) (*kubevirtv1.VirtualMachineInstance, error) {
	if ofVM {
		vm := &kubevirtv1.VirtualMachine{}
		if err := s.Reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vm); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachine.kubevirt.io %q not found", name)}
			}
			return nil, internal("unable to retrieve vm [%s]: %v", name, err)
		}
		if !vm.Status.Created {
			return nil, vmConflict(name, "VMI is not started")
		}
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := s.Reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
		}
		if ofVM {
			return nil, internal("unable to retrieve vmi [%s] for vm: %v", name, err)
		}
		return nil, internal("unable to retrieve vmi [%s]: %v", name, err)
	}
	for _, c := range vmi.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstancePaused && c.Status == corev1.ConditionTrue {
			return nil, vmiConflict(name, "VMI is paused")
		}
	}
	return vmi, nil
}

// dialVMI connects to port at the VMI's first interface address.
func dialVMI(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, port, protocol string) (net.Conn, error) {
	if len(vmi.Status.Interfaces) == 0 || vmi.Status.Interfaces[0].IP == "" {
		return nil, badRequest("no network interfaces are present")
	}
	if port == "" {
		return nil, badRequest("port must not be empty")
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, badRequest("invalid port %q", port)
	}
	if protocol == "" {
		protocol = "tcp"
	}
	if protocol != "tcp" && protocol != "udp" {
		return nil, badRequest("unsupported protocol %q", protocol)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, protocol, net.JoinHostPort(vmi.Status.Interfaces[0].IP, port))
	if err != nil {
		return nil, internal("dialing VM: %v", err)
	}
	return conn, nil
}
