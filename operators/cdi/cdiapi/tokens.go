// Package cdiapi is cdi-apiserver's aggregated API upload.cdi.kubevirt.io:
// it issues the short-lived, signed tokens that let one upload reach one
// claim through cdi-uploadproxy.
package cdiapi

import (
	"crypto/ed25519"
	"time"

	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// TokenTTL is how long an upload token is valid, as CDI's.
const TokenTTL = uploadtoken.TTL

// Signer issues tokens with cdi-apiserver's private key; cdi-uploadproxy
// and the node's upload server verify them with the public half
// (kube/uploadtoken).
type Signer struct {
	Key ed25519.PrivateKey
}

// Issue signs an upload token for namespace/name valid for ttl from now.
func (s Signer) Issue(namespace, name string, now time.Time, ttl time.Duration) (string, error) {
	return uploadtoken.Issue(s.Key, namespace, name, now, ttl)
}
