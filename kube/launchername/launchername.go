// Package launchername names launcher pods: virt-launcher-<vmi>-xxxxx, as
// a generated name looks, but with a suffix derived from a seed (the VMI's
// UID for its first launcher, a migration's UID for its target), so a
// creator that retries finds the pod it made instead of making a second.
package launchername

import "crypto/sha256"

// alphabet is the apiserver's for generated names.
const alphabet = "bcdfghjklmnpqrstvwxz2456789"

// For is the launcher pod name of the VMI for the seed.
func For(vmi, seed string) string {
	base := "virt-launcher-" + vmi + "-"
	if len(base) > 58 {
		base = base[:58]
	}
	sum := sha256.Sum256([]byte(seed))
	suffix := make([]byte, 5)
	for i := range suffix {
		suffix[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return base + string(suffix)
}
