package kubeapi

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
)

// MaxChecks bounds one Allowed call: a page asks about its buttons, not
// about the whole cluster.
const MaxChecks = 256

// accessTTL is how long an answer is reused: the operations stream asks
// the same questions every poll, and a role change may take this long to
// show in the page (the apiserver still decides every real request).
const accessTTL = 10 * time.Second

// parallelReviews bounds the reviews one call has in flight.
const parallelReviews = 8

// Allowed answers each check for the token's owner, in order.
func (u *Upstream) Allowed(ctx context.Context, token string, checks []Check) ([]bool, error) {
	if len(checks) > MaxChecks {
		return nil, fmt.Errorf("%d access checks at once; at most %d", len(checks), MaxChecks)
	}
	c, err := authzclient.NewForConfig(u.restConfig(token))
	if err != nil {
		return nil, fmt.Errorf("building the authorization client: %w", err)
	}
	who := sha256.Sum256([]byte(token))
	out := make([]bool, len(checks))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelReviews)
	for i, check := range checks {
		key := accessKey{who: who, check: check}
		if allowed, ok := u.answers.get(key); ok {
			out[i] = allowed
			continue
		}
		g.Go(func() error {
			allowed, err := u.review(gctx, c.SelfSubjectAccessReviews(), check)
			if err != nil {
				return err
			}
			u.answers.put(key, allowed)
			out[i] = allowed
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// accessKey holds a hash of the token, never the token itself.
type accessKey struct {
	who   [sha256.Size]byte
	check Check
}

type answer struct {
	allowed bool
	at      time.Time
}

// answers are recent access reviews; errors are never kept.
type answers struct {
	mu sync.Mutex
	m  map[accessKey]answer
}

// answersCap is where expired answers are swept, keeping memory bounded
// by what the TTL lets accumulate.
const answersCap = 4096

func (a *answers) get(k accessKey) (bool, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.m[k]
	if !ok || time.Since(v.at) > accessTTL {
		return false, false
	}
	return v.allowed, true
}

func (a *answers) put(k accessKey, allowed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[accessKey]answer{}
	}
	if len(a.m) >= answersCap {
		for key, v := range a.m {
			if time.Since(v.at) > accessTTL {
				delete(a.m, key)
			}
		}
		if len(a.m) >= answersCap {
			a.m = map[accessKey]answer{} // a burst of fresh answers: start over
		}
	}
	a.m[k] = answer{allowed: allowed, at: time.Now()}
}
