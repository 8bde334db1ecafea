package launcher

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// freezer holds the guest's filesystems frozen for at most the timeout
// the request gave, so a caller that dies mid-snapshot cannot leave the
// guest frozen, as upstream's launcher does.
type freezer struct {
	mu     sync.Mutex
	frozen bool
	timer  *time.Timer
}

func (f *freezer) status() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen {
		return "frozen"
	}
	return ""
}

func (l *launcher) freeze(w http.ResponseWriter, r *http.Request) {
	var req kubevirtv1.FreezeUnfreezeTimeout
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.UnfreezeTimeout == nil {
		http.Error(w, "Unfreeze timeout in freeze request is not set", http.StatusBadRequest)
		return
	}
	f := &l.frozen
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := l.hv.FSFreeze(r.Context(), l.name); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	f.frozen = true
	if f.timer != nil {
		f.timer.Stop()
	}
	if d := req.UnfreezeTimeout.Duration; d > 0 {
		f.timer = time.AfterFunc(d, func() { _ = l.thaw(context.Background()) })
	}
	w.WriteHeader(http.StatusNoContent)
}

func (l *launcher) unfreeze(w http.ResponseWriter, r *http.Request) {
	if err := l.thaw(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// thaw is idempotent: thawing a guest that is not frozen does nothing.
func (l *launcher) thaw(ctx context.Context) error {
	f := &l.frozen
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	if !f.frozen {
		return nil
	}
	if err := l.hv.FSThaw(ctx, l.name); err != nil {
		return fmt.Errorf("thawing the guest's filesystems: %w", err)
	}
	f.frozen = false
	return nil
}
