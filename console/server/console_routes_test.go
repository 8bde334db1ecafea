package server

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The template and upload routes act as the session's user, so a
// browser's request needs the session and, being a POST, its CSRF header.
func TestTemplateAndUploadRoutesNeedTheSessionAndItsCSRFHeader(t *testing.T) {
	f := newFixture(t, Config{})
	for _, path := range []string{"/console/templates/openshift/fedora/process", "/console/upload/mine/disk"} {
		resp := f.do(t, http.MethodPost, path, `{}`, nil)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		resp.Body.Close()
	}
	f.login(t)
	for _, path := range []string{"/console/templates/openshift/fedora/process", "/console/upload/mine/disk"} {
		resp := f.do(t, http.MethodPost, path, `{}`, nil)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, path)
		resp.Body.Close()
	}
}
