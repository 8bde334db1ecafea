package handler

import (
	"net/http"
)

// screenshot relays a PNG of the VMI's display, as virt-handler's
// vnc/screenshot does; failures are 500s with the reason, as upstream's.
func (a *apiServer) screenshot(w http.ResponseWriter, r *http.Request) {
	if !a.authorized(w, r) {
		return
	}
	l, err := a.launcher(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	img, err := l.client().Screenshot(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(img)
}
