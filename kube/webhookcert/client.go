package webhookcert

import (
	"crypto/x509"
	"fmt"
	"time"
)

// BundleFile is the CA bundle (the current CA, then the previous one while
// it is valid) where both sides of a mutually authenticated link read it.
const BundleFile = "ca-bundle.crt"

// EnsureClientData keeps in data a client certificate named cn, signed by
// the CA that caData (EnsureData's entries) holds, renewed when due or when
// that CA changed, and the CA bundle beside it. It reports whether anything
// changed.
func EnsureClientData(data, caData map[string][]byte, cn string, p Policy, now time.Time) (bool, error) {
	ca, caKey, err := parse(caData[CAFile], caData[caKey])
	if err != nil {
		return false, fmt.Errorf("reading the CA of %s: %w", cn, err)
	}
	leaf, _, err := parse(data[CertFile], data[KeyFile])
	renew := err != nil || now.Add(p.ServerRenewBefore).After(leaf.NotAfter) || leaf.CheckSignatureFrom(ca) != nil || leaf.Subject.CommonName != cn
	if renew {
		cert, key, err := issue(ca, caKey, cn, nil, now, p.ServerDuration, x509.ExtKeyUsageClientAuth)
		if err != nil {
			return false, err
		}
		if err := put(data, CertFile, KeyFile, cert, key); err != nil {
			return false, err
		}
	}
	b := bundle(caData, ca, now)
	changed := renew || !SameBundle(data[BundleFile], b)
	data[BundleFile] = b
	return changed, nil
}
