package virtapi

import (
	"fmt"
	"net/http"
	"strings"
)

// notYet are the subresources upstream serves that virtflow does not
// yet, by the resource they hang off. They answer 501 with a message
// saying so, never a 404 that would look like a wrong URL.
var notYet = map[string][]string{
	"virtualmachines": {"PUT addvolume", "PUT removevolume", "PUT memorydump", "PUT removememorydump"},
	"virtualmachineinstances": {"PUT addvolume", "PUT removevolume",
		"GET usbredir", "GET vsock", "PUT backup", "PUT redefine-checkpoint"},
}

// notYetTopLevel are upstream's group-level endpoints not served yet.
var notYetTopLevel []string

func unsupported(mux *http.ServeMux, gv string) {
	for resource, routes := range notYet {
		for _, route := range routes {
			method, path, _ := strings.Cut(route, " ")
			sub := strings.SplitN(path, "/{", 2)[0]
			mux.HandleFunc(fmt.Sprintf("%s %s/namespaces/{ns}/%s/{name}/%s", method, gv, resource, path), notSupported(resource+"/"+sub))
		}
	}
	for _, route := range notYetTopLevel {
		method, path, _ := strings.Cut(route, " ")
		mux.HandleFunc(method+" "+gv+"/"+path, notSupported(path))
	}
}

func notSupported(what string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, http.StatusNotImplemented, fmt.Sprintf("%s is not supported yet by this virtflow release", what))
	}
}
