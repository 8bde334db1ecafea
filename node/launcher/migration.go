package launcher

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/virtflow/virtflow/node/libvirt"
)

// Phases of the launcher's outgoing migration.
const (
	MigrationRunning   = "Running"
	MigrationSucceeded = "Succeeded"
	MigrationFailed    = "Failed"
)

// MigrationStatus is the launcher's outgoing migration, as GET
// /v1/migration answers it.
type MigrationStatus struct {
	// ID names the migration (its VMIM's UID) the status is of.
	ID string `json:"id,omitempty"`
	// Phase is empty before a migration was asked for.
	Phase   string    `json:"phase,omitempty"`
	Message string    `json:"message,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	// Progress is libvirt's job while the migration runs.
	Progress libvirt.JobProgress `json:"progress,omitzero"`
}

// migrator runs at most one migration of the launcher's domain; a
// finished one stays reported, and none starts after it succeeded (the
// domain is gone).
type migrator struct {
	mu sync.Mutex
	st MigrationStatus
}

func (m *migrator) status() MigrationStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

// MigrateRequest asks for one migration, named by ID.
type MigrateRequest struct {
	ID string `json:"id"`
	libvirt.MigrateOptions
}

// start begins the migration unless one runs or succeeded.
func (m *migrator) start(hv libvirt.Hypervisor, name string, req MigrateRequest) (bool, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch m.st.Phase {
	case MigrationRunning:
		return false, "a migration of this domain is already running"
	case MigrationSucceeded:
		return false, "this domain has already migrated"
	}
	m.st = MigrationStatus{ID: req.ID, Phase: MigrationRunning, Started: time.Now().UTC()}
	o := req.MigrateOptions
	go func() {
		err := hv.Migrate(context.Background(), name, o)
		m.mu.Lock()
		defer m.mu.Unlock()
		m.st.Ended, m.st.Phase = time.Now().UTC(), MigrationSucceeded
		if err != nil {
			m.st.Phase, m.st.Message = MigrationFailed, err.Error()
		}
		logf("migration of %s to %s: %s %s", name, o.DestURI, m.st.Phase, m.st.Message)
	}()
	return true, ""
}

func (l *launcher) migrate(w http.ResponseWriter, r *http.Request) {
	var req MigrateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.DestURI == "" || req.ID == "" {
		http.Error(w, "a migration needs its ID and options, with the target's URI", http.StatusBadRequest)
		return
	}
	if ok, why := l.migration.start(l.hv, l.name, req); !ok {
		http.Error(w, why, http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (l *launcher) migrationStatus(w http.ResponseWriter, r *http.Request) {
	st := l.migration.status()
	if st.Phase == MigrationRunning {
		st.Progress, _ = l.hv.MigrationProgress(r.Context(), l.name)
	}
	_ = json.NewEncoder(w).Encode(st)
}

// onRunningMigration acts on the domain's running migration with act
// (libvirt's abort, or the switch to post-copy); with none running it
// answers 409.
func (l *launcher) onRunningMigration(act func(context.Context, string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if l.migration.status().Phase != MigrationRunning {
			http.Error(w, "no migration of this domain is running", http.StatusConflict)
			return
		}
		if err := act(r.Context(), l.name); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}
