package virtapi

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// TestPortForwardRelaysTheVMIsPortOverAWebsocket: virt-api dials the port
// at the VMI's address and carries the bytes both ways in binary frames.
func TestPortForwardRelaysTheVMIsPortOverAWebsocket(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 5)
		n, _ := c.Read(buf)
		_, _ = c.Write([]byte(strings.ToUpper(string(buf[:n]))))
	}()
	vmi := runningVMI()
	vmi.Status.Interfaces = []kubevirtv1.VirtualMachineInstanceNetworkInterface{{Name: "default", IP: "127.0.0.1"}}
	srv := apiWith(t, &fakeAgent{}, vmi)
	port := l.Addr().(*net.TCPAddr).Port
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/apis/subresources.kubevirt.io/v1/" + vmiPath + "portforward/" + strconv.Itoa(port) + "/tcp"
	d := websocket.Dialer{Subprotocols: []string{PlainStreamProtocol}}
	ws, _, err := d.Dial(url, nil)
	require.NoError(t, err)
	defer ws.Close()
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte("hello")))
	typ, data, err := ws.ReadMessage()
	require.NoError(t, err)
	require.Equal(t, websocket.BinaryMessage, typ)
	require.Equal(t, "HELLO", string(data))
}

func TestPortForwardRefusesAsUpstream(t *testing.T) {
	noIface := runningVMI()
	code, body := call(t, apiWith(t, &fakeAgent{}, noIface), http.MethodGet, vmiPath+"portforward/22", "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, "no network interfaces are present", statusMessage(t, body))

	paused := runningVMI(kubevirtv1.VirtualMachineInstancePaused)
	paused.Status.Interfaces = []kubevirtv1.VirtualMachineInstanceNetworkInterface{{IP: "127.0.0.1"}}
	code, body = call(t, apiWith(t, &fakeAgent{}, paused), http.MethodGet, vmiPath+"portforward/22", "")
	require.Equal(t, http.StatusConflict, code)
	require.Equal(t, `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vm": VMI is paused`, statusMessage(t, body))

	stopped := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}}
	code, body = call(t, apiWith(t, &fakeAgent{}, stopped), http.MethodGet, "namespaces/ns/virtualmachines/vm/portforward/22/tcp", "")
	require.Equal(t, http.StatusConflict, code)
	require.Equal(t, `Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VMI is not started`, statusMessage(t, body))

	code, body = call(t, apiWith(t, &fakeAgent{}), http.MethodGet, vmiPath+"portforward/22", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, `virtualmachineinstance.kubevirt.io "vm" not found`, statusMessage(t, body))
}
