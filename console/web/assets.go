// Package web holds the web console's browser bundle for the console
// server to serve.
package web

import (
	"embed"
	"io/fs"
)

// The all: prefix keeps dist/.keep, so this package compiles in a clone
// where the bundle was never built.
//
//go:embed all:dist
var dist embed.FS

// Assets returns the console's bundle (index.html, app.js, app.css and the
// fonts and images under assets/) rooted at dist. The bundle is built by
// hack/console-build.sh, which hack/install.sh runs; a binary built without
// it embeds only dist/.keep, and the server then answers 503 saying so
// rather than serving a blank page.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		// fs.Sub fails only for an invalid path, and "dist" is valid.
		panic(err)
	}
	return sub
}
