package handler

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/wire/rawstream"
)

// TokenSecret names the Secret holding a node agent's API token, in the
// install namespace; virt-api reads it to call the agent.
func TokenSecret(node string) string { return "virt-handler-" + node }

// apiServer is the node agent's API for virt-api: VMI commands that must
// run on the node (pause, unpause, soft reboot, reset, freeze, unfreeze).
type apiServer struct {
	c     client.Client
	cfg   Config
	token string
	port  int
	ln    net.Listener
	// published is set once virt-api can find this agent's address.
	published atomic.Bool
}

// ready is the agent's readiness check: a replaced agent is Ready only
// once its new address is published, or virt-api would call the old one.
func (a *apiServer) ready(*http.Request) error {
	if !a.published.Load() {
		return errors.New("the node agent's address is not published yet")
	}
	return nil
}

func newAPIServer(c client.Client, cfg Config) (*apiServer, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return nil, fmt.Errorf("generating node agent token: %w", err)
	}
	// Listen now, so the port is known before the Node is first written.
	l, err := net.Listen("tcp", net.JoinHostPort(cfg.NodeIP, "0"))
	if err != nil {
		return nil, fmt.Errorf("listening for node agent API: %w", err)
	}
	return &apiServer{c: c, cfg: cfg, token: hex.EncodeToString(buf), ln: l, port: l.Addr().(*net.TCPAddr).Port}, nil
}

// Start implements manager.Runnable: publish the token, then serve.
func (a *apiServer) Start(ctx context.Context) error {
	l := a.ln
	if err := a.publishToken(ctx); err != nil {
		l.Close()
		return err
	}
	a.published.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/namespaces/{ns}/virtualmachineinstances/{name}/{verb}", a.command)
	mux.HandleFunc("GET /v1/namespaces/{ns}/virtualmachineinstances/{name}/{stream}", a.stream)
	mux.HandleFunc("GET /v1/namespaces/{ns}/virtualmachineinstances/{name}/guestinfo", a.guestInfo)
	mux.HandleFunc("GET /v1/namespaces/{ns}/virtualmachineinstances/{name}/vnc/screenshot", a.screenshot)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if a.cfg.APITLS != nil {
		l = tls.NewListener(l, a.cfg.APITLS.Server())
	}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

func (a *apiServer) publishToken(ctx context.Context) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.cfg.Namespace, Name: TokenSecret(a.cfg.NodeName)}}
	err := a.c.Get(ctx, client.ObjectKeyFromObject(s), s)
	s.Data = map[string][]byte{"token": []byte(a.token), "address": []byte(a.ln.Addr().String())}
	if apierrors.IsNotFound(err) {
		err = a.c.Create(ctx, s)
	} else if err == nil {
		err = a.c.Update(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("publishing node agent token: %w", err)
	}
	return nil
}

func (a *apiServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+a.token)) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return false
	}
	return true
}

// stream relays the VMI's serial console or VNC display as a raw stream
// over the hijacked connection; virt-api turns it into a websocket.
func (a *apiServer) stream(w http.ResponseWriter, r *http.Request) {
	if !a.authorized(w, r) {
		return
	}
	kind := r.PathValue("stream")
	if kind != launcher.ConsoleStream && kind != launcher.VNCStream {
		http.Error(w, "unknown stream "+kind, http.StatusNotFound)
		return
	}
	l, err := a.launcher(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	stream, err := l.client().Stream(context.WithoutCancel(r.Context()), kind)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	rawstream.Serve(w, stream)
}

// guestInfo relays what the VMI's guest agent reports.
func (a *apiServer) guestInfo(w http.ResponseWriter, r *http.Request) {
	if !a.authorized(w, r) {
		return
	}
	l, err := a.launcher(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	gi, err := l.client().GuestInfo(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(gi.AgentInfo())
}

// vmiCommands are the commands virt-api may send a VMI's launcher.
var vmiCommands = map[string]bool{"pause": true, "unpause": true, "softreboot": true, "reset": true, "freeze": true, "unfreeze": true}

func (a *apiServer) command(w http.ResponseWriter, r *http.Request) {
	if !a.authorized(w, r) {
		return
	}
	verb := r.PathValue("verb")
	if !vmiCommands[verb] {
		http.Error(w, "unknown command "+verb, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l, err := a.launcher(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if len(body) == 0 {
		body = nil
	}
	if err := l.client().Send(r.Context(), verb, body); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *apiServer) launcher(ctx context.Context, ns, name string) (launcherRef, error) {
	v := &kubevirtv1.VirtualMachineInstance{}
	if err := a.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, v); err != nil {
		return launcherRef{}, fmt.Errorf("VMI %s/%s: %w", ns, name, err)
	}
	pod, err := launcherPod(ctx, a.c, a.cfg.NodeName, v)
	if err != nil || pod == nil {
		return launcherRef{}, fmt.Errorf("VMI %s/%s is not running on node %s", ns, name, a.cfg.NodeName)
	}
	return a.cfg.locate(pod), nil
}
