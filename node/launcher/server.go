package launcher

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/wire/rawstream"
)

// serve exposes the launcher's commands on a unix socket only root (the
// node agent) can reach.
func serve(path string, l *launcher) (*http.Server, error) {
	_ = os.Remove(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restricting %s: %w", path, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		st := l.status(r.Context())
		if st.State == libvirt.Running || st.State == libvirt.Paused {
			st.AgentConnected, _ = l.hv.AgentConnected(r.Context(), l.name)
		}
		_ = json.NewEncoder(w).Encode(st)
	})
	mux.HandleFunc("GET /v1/guestinfo", func(w http.ResponseWriter, r *http.Request) {
		gi, err := l.hv.GuestInfo(r.Context(), l.name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		gi.FSFreezeStatus = l.frozen.status()
		_ = json.NewEncoder(w).Encode(gi)
	})
	for verb, f := range map[string]func(context.Context, string) error{
		"pause": l.hv.Pause, "unpause": l.hv.Resume, "shutdown": l.hv.Shutdown, "destroy": l.hv.Destroy,
		"softreboot": l.hv.Reboot, "reset": l.hv.Reset,
	} {
		mux.HandleFunc("PUT /v1/"+verb, func(w http.ResponseWriter, r *http.Request) {
			if err := f(r.Context(), l.name); err != nil {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
	}
	mux.HandleFunc("PUT /v1/migrate", l.migrate)
	mux.HandleFunc("GET /v1/migration", l.migrationStatus)
	mux.HandleFunc("PUT /v1/migrate-abort", l.onRunningMigration(l.hv.AbortJob))
	mux.HandleFunc("PUT /v1/migrate-postcopy", l.onRunningMigration(l.hv.StartPostCopy))
	// The migration monitor's remedy without post-copy: a paused guest
	// dirties nothing more, and libvirt resumes it on the target.
	mux.HandleFunc("PUT /v1/migrate-pause", l.onRunningMigration(l.hv.Pause))
	mux.HandleFunc("PUT /v1/freeze", l.freeze)
	mux.HandleFunc("PUT /v1/unfreeze", l.unfreeze)
	mux.HandleFunc("GET /v1/console", l.console)
	mux.HandleFunc("GET /v1/vnc", l.vnc)
	mux.HandleFunc("GET /v1/screenshot", l.screenshot)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

// console hands the raw serial stream to the caller, both ways.
func (l *launcher) console(w http.ResponseWriter, r *http.Request) {
	stream, err := l.hv.Console(r.Context(), l.name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	rawstream.Serve(w, stream)
}

// vnc hands the guest's VNC display (RFB) to the caller, both ways.
func (l *launcher) vnc(w http.ResponseWriter, r *http.Request) {
	path := l.cfg.vncSocket()
	if path == "" {
		http.Error(w, "No graphics devices are present.", http.StatusConflict)
		return
	}
	conn, err := (&net.Dialer{}).DialContext(r.Context(), "unix", path)
	if err != nil {
		http.Error(w, fmt.Sprintf("connecting to the VNC display: %v", err), http.StatusConflict)
		return
	}
	rawstream.Serve(w, conn)
}
