package operations

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/session"
)

// event is one server-sent event.
type event struct{ name, data string }

func readEvent(t *testing.T, r *bufio.Reader) event {
	t.Helper()
	var ev event
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && ev.name != "":
			return ev
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		}
	}
}

func streamServer(s *Service) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeStream(w, r.WithContext(session.WithToken(r.Context(), "alice")))
	}))
}

func TestTheStreamPushesChangesWithoutBeingAsked(t *testing.T) {
	ft, _, s := world(t)
	s.PollInterval = 20 * time.Millisecond
	srv := streamServer(s)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "?namespace=mine")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := bufio.NewReader(resp.Body)

	first := readEvent(t, r)
	require.Equal(t, "operations", first.name)
	var l List
	require.NoError(t, json.Unmarshal([]byte(first.data), &l))
	require.Len(t, l.Operations, 1)
	assert.Equal(t, "Running", l.Operations[0].Status)

	ft.setStatus("cdi-import-a", completed)
	next := readEvent(t, r)
	require.Equal(t, "operations", next.name, "the change arrives; unchanged polls send nothing")
	require.NoError(t, json.Unmarshal([]byte(next.data), &l))
	assert.Equal(t, "Completed", l.Operations[0].Status)
	assert.False(t, l.Operations[0].Cancellable)
}

func TestTheStreamEndsWhenTheTokenIsNoLongerAccepted(t *testing.T) {
	_, r, s := world(t)
	r.err = kubeapi.ErrUnauthorized
	s.PollInterval = 20 * time.Millisecond
	srv := streamServer(s)
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	ev := readEvent(t, br)
	assert.Equal(t, "error", ev.name)
	assert.Contains(t, ev.data, `"code":401`)
	_, err = br.ReadString('\n')
	for err == nil {
		_, err = br.ReadString('\n')
	}
	assert.ErrorContains(t, err, "EOF", "the server closed the stream")
}

func TestTheStreamEndsWhenTheServerStops(t *testing.T) {
	_, _, s := world(t)
	done := make(chan struct{})
	s.Done, s.PollInterval = done, time.Hour
	srv := streamServer(s)
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	readEvent(t, br)
	close(done)
	_, err = br.ReadString('\n')
	for err == nil {
		_, err = br.ReadString('\n')
	}
	assert.ErrorContains(t, err, "EOF")
}
