package storage

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// uploadAuth lets an upload through only with the token cdi-apiserver
// issued for this server's DataVolume, which cdi-uploadproxy verified and
// forwards: a pod that reaches the node's address directly, or an upload
// routed to another tenant's server, carries no such token.
type uploadAuth struct {
	key             ed25519.PublicKey
	namespace, name string
	// now is the clock; time.Now when nil.
	now func() time.Time
}

// check verifies the request's bearer token and that it names this
// server's DataVolume.
func (u uploadAuth) check(r *http.Request) error {
	now := time.Now
	if u.now != nil {
		now = u.now
	}
	c, err := uploadtoken.FromRequest(r, u.key, now())
	if err != nil {
		return fmt.Errorf("upload token refused: %w", err)
	}
	if c.Namespace != u.namespace || c.Name != u.name {
		return fmt.Errorf("upload token refused: it is for %s/%s, not %s/%s", c.Namespace, c.Name, u.namespace, u.name)
	}
	return nil
}

// errNoUploadKey is a node worker started without the key: it serves no
// upload until it has one (a retry finds it once it is mounted).
var errNoUploadKey = errors.New("this node has no upload token verification key: uploads cannot be authenticated")

// uploadKey is the token verification key, read for each attempt so that
// a key mounted or replaced since the worker started is used.
func (a *Activities) uploadKey() (ed25519.PublicKey, error) {
	if a.UploadKey == nil {
		return nil, errNoUploadKey
	}
	key, err := a.UploadKey()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoUploadKey, err)
	}
	return key, nil
}
