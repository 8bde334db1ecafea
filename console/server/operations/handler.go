package operations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
)

// List is the answer of GET /console/operations and each event of the
// stream.
type List struct {
	Operations []Operation `json:"operations"`
}

// keepalive is how long a stream stays silent at most: proxies between
// the browser and the console drop connections idle for longer.
const keepalive = 15 * time.Second

// ServeList answers GET /console/operations?namespace=&kind=&name=&limit=.
func (s *Service) ServeList(w http.ResponseWriter, r *http.Request) {
	token, _ := session.Token(r.Context())
	ops, err := s.List(r.Context(), token, filterOf(r))
	if err != nil {
		fail(w, err)
		return
	}
	reply.JSON(w, http.StatusOK, List{Operations: ops})
}

// ServeCancel answers POST /console/operations/{id}/cancel.
func (s *Service) ServeCancel(w http.ResponseWriter, r *http.Request) {
	token, _ := session.Token(r.Context())
	id := r.PathValue("id")
	if err := s.Cancel(r.Context(), token, id); err != nil {
		fail(w, err)
		return
	}
	reply.JSON(w, http.StatusAccepted, map[string]string{"message": "cancellation of " + id + " requested"})
}

// ServeStream answers GET /console/operations/stream with server-sent
// events: an "operations" event carrying a List whenever the list
// changes (the first at once), an "error" event carrying a Status when a
// poll fails; the stream ends after a 401.
func (s *Service) ServeStream(w http.ResponseWriter, r *http.Request) {
	token, _ := session.Token(r.Context())
	f := filterOf(r)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, wrote: time.Now()}
	st.write("retry: 3000\n\n")
	tick := time.NewTicker(s.interval())
	defer tick.Stop()
	for {
		ops, err := s.List(r.Context(), token, f)
		if done := st.send(ops, err); done || rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.Done:
			return
		case <-tick.C:
		}
	}
}

func (s *Service) interval() time.Duration {
	if s.PollInterval > 0 {
		return s.PollInterval
	}
	return 2 * time.Second
}

// stream writes one connection's events, each only when it differs from
// the last of its kind.
type stream struct {
	w             io.Writer
	last, lastErr []byte
	wrote         time.Time
	broken        bool
}

// send writes what one poll found; true when the stream should end.
func (st *stream) send(ops []Operation, err error) bool {
	if err != nil {
		code, reason := classify(err)
		data, _ := json.Marshal(reply.Status(code, reason, err.Error()))
		if !bytes.Equal(data, st.lastErr) {
			st.event("error", data)
			st.lastErr = data
		}
		return st.broken || code == http.StatusUnauthorized
	}
	st.lastErr = nil
	data, _ := json.Marshal(List{Operations: ops})
	switch {
	case !bytes.Equal(data, st.last):
		st.event("operations", data)
		st.last = data
	case time.Since(st.wrote) > keepalive:
		st.write(": keepalive\n\n")
	}
	return st.broken
}

func (st *stream) event(name string, data []byte) {
	st.write(fmt.Sprintf("event: %s\ndata: %s\n\n", name, data))
}

func (st *stream) write(s string) {
	if _, err := io.WriteString(st.w, s); err != nil {
		st.broken = true
	}
	st.wrote = time.Now()
}

func filterOf(r *http.Request) Filter {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	return Filter{Namespace: q.Get("namespace"), Kind: q.Get("kind"), Name: q.Get("name"), Limit: limit}
}

func fail(w http.ResponseWriter, err error) {
	code, reason := classify(err)
	reply.Error(w, code, reason, err.Error())
}

// classify maps an error to the HTTP status the page acts on.
func classify(err error) (int, metav1.StatusReason) {
	switch {
	case errors.Is(err, kubeapi.ErrUnauthorized):
		return http.StatusUnauthorized, metav1.StatusReasonUnauthorized
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, metav1.StatusReasonNotFound
	case errors.Is(err, ErrNotRunning):
		return http.StatusConflict, metav1.StatusReasonConflict
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, metav1.StatusReasonForbidden
	}
	return http.StatusBadGateway, metav1.StatusReasonServiceUnavailable
}
