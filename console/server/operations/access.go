package operations

import (
	"context"

	"github.com/virtflow/virtflow/console/server/kubeapi"
)

// Authorizer answers access checks as the token's owner; kubeapi.Upstream
// is one.
type Authorizer interface {
	// Allowed answers each check, in order.
	Allowed(ctx context.Context, token string, checks []kubeapi.Check) ([]bool, error)
}

// everything is the check only cluster administrators pass: an operation
// whose owner the console cannot tell is theirs alone.
func everything(verb string) kubeapi.Check {
	return kubeapi.Check{Verb: verb, Group: "*", Resource: "*"}
}

// wide is the namespace-wide check for an owner, which answers for all
// its namespace's operations at once.
func wide(verb string, o *Owner) kubeapi.Check {
	if o == nil {
		return everything(verb)
	}
	return kubeapi.Check{Verb: verb, Group: o.Group, Resource: o.Resource, Namespace: o.Namespace}
}

// permitted answers, per owner (nil: unknown), whether the user may verb
// it. Namespace-wide questions go first, then by name only for what they
// refused, so a list of a namespace's imports costs one review, while a
// role limited to some names still sees its own.
func permitted(ctx context.Context, a Authorizer, token, verb string, owners []*Owner) ([]bool, error) {
	out := make([]bool, len(owners))
	var checks []kubeapi.Check
	for _, o := range owners {
		checks = append(checks, wide(verb, o))
	}
	if err := answer(ctx, a, token, checks, out, allIndexes(len(owners))); err != nil {
		return nil, err
	}
	checks = checks[:0]
	var named []int
	for i, o := range owners {
		if !out[i] && o != nil && o.Name != "" {
			c := wide(verb, o)
			c.Name = o.Name
			checks = append(checks, c)
			named = append(named, i)
		}
	}
	if err := answer(ctx, a, token, checks, out, named); err != nil {
		return nil, err
	}
	return out, nil
}

// answer asks the distinct checks, in batches the authorizer takes, and
// writes each answer to out[at[i]].
func answer(ctx context.Context, a Authorizer, token string, checks []kubeapi.Check, out []bool, at []int) error {
	index := map[kubeapi.Check]int{}
	var distinct []kubeapi.Check
	for _, c := range checks {
		if _, ok := index[c]; !ok {
			index[c] = len(distinct)
			distinct = append(distinct, c)
		}
	}
	answers := make([]bool, 0, len(distinct))
	for start := 0; start < len(distinct); start += kubeapi.MaxChecks {
		end := min(start+kubeapi.MaxChecks, len(distinct))
		got, err := a.Allowed(ctx, token, distinct[start:end])
		if err != nil {
			return err
		}
		answers = append(answers, got...)
	}
	for i, c := range checks {
		out[at[i]] = answers[index[c]]
	}
	return nil
}

func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
