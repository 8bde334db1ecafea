package virtapi

import (
	"encoding/json"
	"net/http"

	"github.com/virtflow/virtflow/wire/guestfspod"
)

// guestfsInfo is upstream's answer to GET guestfs: where the
// libguestfs-tools image is. virtctl composes
// "<registry>/<imagePrefix>libguestfs-tools:<tag>" from it unless gsImage
// names an image outright.
type guestfsInfo struct {
	Registry    string `json:"registry"`
	Tag         string `json:"tag"`
	Digest      string `json:"digest"`
	ImagePrefix string `json:"imagePrefix"`
	GsImage     string `json:"gsImage"`
}

// guestfs names the image the node imported, in upstream's parts.
func (s *Server) guestfs(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(guestfsInfo{Registry: guestfspod.Registry, Tag: guestfspod.Tag})
}
