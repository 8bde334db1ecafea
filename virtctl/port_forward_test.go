package virtctl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakePortForward is virt-api's portforward subresource: it answers each
// binary frame with the frame upper-cased, and remembers the paths asked.
type fakePortForward struct {
	mu    sync.Mutex
	paths []string
}

func (f *fakePortForward) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func (f *fakePortForward) serve(t *testing.T) *httptest.Server {
	up := websocket.Upgrader{Subprotocols: []string{"plain.kubevirt.io"}}
	// TLS, since client-go sends no token to a plain HTTP server.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.mu.Unlock()
		if strings.Contains(r.URL.Path, "/paused/") {
			apiObject(w, http.StatusConflict, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Code: http.StatusConflict, Message: "VMI is paused"})
			return
		}
		if r.Header.Get("Authorization") != "Bearer t" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			kind, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if kind != websocket.BinaryMessage || ws.WriteMessage(websocket.BinaryMessage, bytes.ToUpper(data)) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// forwardCommand is a command connected to srv, namespace ns.
func forwardCommand(t *testing.T, srv *httptest.Server) (*command, *bytes.Buffer) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: me, namespace: ns}}]
current-context: fake
`, srv.URL, base64.StdEncoding.EncodeToString([]byte(serverCA(srv))))), 0o600))
	client, cfg, ns, err := connect(kubeconfig, "", "")
	require.NoError(t, err)
	var errOut bytes.Buffer
	return &command{client: client, config: cfg, namespace: ns, out: io.Discard, in: strings.NewReader(""), errOut: &errOut}, &errOut
}

func TestPortForwardStdioRelaysThroughTheSubresource(t *testing.T) {
	fake := &fakePortForward{}
	c, _ := forwardCommand(t, fake.serve(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c.in, c.out = inR, outW
	done := make(chan error, 1)
	go func() {
		done <- c.run(context.Background(), "port-forward", []string{"--stdio=true", "vm/web/apps", "22"})
	}()
	go func() { _, _ = inW.Write([]byte("ssh-2.0")) }()
	got := make([]byte, len("SSH-2.0"))
	read := make(chan error, 1)
	go func() { _, err := io.ReadFull(outR, got); read <- err }()
	select {
	case err := <-done:
		t.Fatalf("port-forward ended before relaying: %v", err)
	case err := <-read:
		require.NoError(t, err)
	}
	require.Equal(t, "SSH-2.0", string(got))
	require.NoError(t, inW.Close())
	require.NoError(t, <-done, "the end of stdin ends the forward")
	require.Equal(t, []string{"/apis/subresources.kubevirt.io/v1/namespaces/apps/virtualmachines/web/portforward/22/tcp"}, fake.asked())
}

func TestPortForwardStdioReportsTheRefusal(t *testing.T) {
	fake := &fakePortForward{}
	c, _ := forwardCommand(t, fake.serve(t))
	err := c.run(context.Background(), "port-forward", []string{"--stdio", "vmi/paused", "udp/53"})
	require.EqualError(t, err, "VMI is paused")
	require.Equal(t, []string{"/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/paused/portforward/53/udp"}, fake.asked())
}

// freePort is a local TCP port nobody listens on right now.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestPortForwardTCPOpensAWebsocketPerConnection(t *testing.T) {
	fake := &fakePortForward{}
	c, errOut := forwardCommand(t, fake.serve(t))
	ctx, cancel := context.WithCancel(context.Background())
	local := freePort(t)
	done := make(chan error, 1)
	go func() { done <- c.run(ctx, "port-forward", []string{"vmi/db", strconv.Itoa(local) + ":5432"}) }()
	for i := 0; i < 2; i++ {
		var conn net.Conn
		require.Eventually(t, func() bool {
			var err error
			conn, err = net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(local)))
			return err == nil
		}, 5*time.Second, 10*time.Millisecond)
		_, err := conn.Write([]byte("select\n"))
		require.NoError(t, err)
		line, err := bufio.NewReader(conn).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "SELECT\n", line)
		require.NoError(t, conn.Close())
	}
	cancel()
	require.NoError(t, <-done)
	want := "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/db/portforward/5432/tcp"
	require.Equal(t, []string{want, want}, fake.asked())
	require.Contains(t, errOut.String(), "forwarding tcp 127.0.0.1:"+strconv.Itoa(local)+" to 5432")
}

func TestPortForwardUDPAnswersEachClient(t *testing.T) {
	fake := &fakePortForward{}
	c, _ := forwardCommand(t, fake.serve(t))
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer conn.Close()
	target := forwardTarget{kind: "vm", namespace: "ns", name: "dns"}
	go c.serveUDP(context.Background(), conn, target, forwardedPort{local: 0, remote: 53, protocol: protocolUDP})
	client, err := net.Dial("udp", conn.LocalAddr().String())
	require.NoError(t, err)
	defer client.Close()
	for _, q := range []string{"query-a", "query-b"} {
		_, err = client.Write([]byte(q))
		require.NoError(t, err)
		require.NoError(t, client.SetReadDeadline(time.Now().Add(5*time.Second)))
		buf := make([]byte, 64)
		n, err := client.Read(buf)
		require.NoError(t, err)
		require.Equal(t, strings.ToUpper(q), string(buf[:n]), "one datagram is one frame")
	}
	require.Equal(t, []string{"/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/dns/portforward/53/udp"}, fake.asked(),
		"one websocket per client")
}

func TestPortForwardRefusesBadArguments(t *testing.T) {
	c := &command{namespace: "ns", errOut: &bytes.Buffer{}}
	cases := map[string][]string{
		"argument validation failed":                                      {"vm/x"},
		"only one port supported when forwarding to stdout":               {"--stdio", "vm/x", "22", "23"},
		"target cannot be empty":                                          {"", "22"},
		"target must contain type and name separated by '/'":              {"x", "22"},
		"namespace cannot be empty":                                       {"vm/x/", "22"},
		"target is not valid with more than two '/'":                      {"vm/x/y/z", "22"},
		"unsupported resource type 'pod'":                                 {"pod/x", "22"},
		"name cannot be empty":                                            {"vmi/", "22"},
		"invalid port, missing local and/or remote port":                  {"vm/x", "tcp/:"},
		`parsing local port: strconv.Atoi: parsing "ssh": invalid syntax`: {"vm/x", "ssh"},
		"unknown protocol: sctp":                                          {"vm/x", "sctp/22"},
	}
	for want, args := range cases {
		require.EqualError(t, c.run(context.Background(), "port-forward", args), want, "args %q", args)
	}
}

func TestParsePortDefaults(t *testing.T) {
	p, err := parsePort("8080")
	require.NoError(t, err)
	require.Equal(t, forwardedPort{local: 8080, remote: 8080, protocol: "tcp"}, p)
	p, err = parsePort("udp/5353:53")
	require.NoError(t, err)
	require.Equal(t, forwardedPort{local: 5353, remote: 53, protocol: "udp"}, p)
}
