package kubeapi

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
)

// ErrUnauthorized is a token the apiserver does not accept (unknown,
// expired, revoked).
var ErrUnauthorized = errors.New("the kube-apiserver does not accept this token")

// User is whom a token authenticates as.
type User struct {
	Username string   `json:"username"`
	UID      string   `json:"uid,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// WhoAmI asks the apiserver whom the token authenticates as (a
// SelfSubjectReview, what `kubectl auth whoami` does), which also proves
// the token valid.
func (u *Upstream) WhoAmI(ctx context.Context, token string) (User, error) {
	c, err := authnclient.NewForConfig(u.restConfig(token))
	if err != nil {
		return User{}, fmt.Errorf("building the authentication client: %w", err)
	}
	r, err := c.SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return User{}, classify("reviewing the token", err)
	}
	info := r.Status.UserInfo
	return User{Username: info.Username, UID: info.UID, Groups: info.Groups}, nil
}

// Check is one question "may I": a verb on a resource (a subresource, in a
// namespace, by name). An empty namespace asks cluster-wide, or for a
// cluster-scoped resource; an empty name asks for every object.
type Check struct {
	Verb        string `json:"verb"`
	Group       string `json:"group,omitempty"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
}

// review asks one SelfSubjectAccessReview as the token's owner.
func (u *Upstream) review(ctx context.Context, c authzclient.SelfSubjectAccessReviewInterface, check Check) (bool, error) {
	ssar := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: check.Verb, Group: check.Group, Resource: check.Resource, Subresource: check.Subresource,
			Namespace: check.Namespace, Name: check.Name,
		},
	}}
	r, err := c.Create(ctx, ssar, metav1.CreateOptions{})
	if err != nil {
		return false, classify(fmt.Sprintf("asking whether the user may %s %s", check.Verb, check.Resource), err)
	}
	return r.Status.Allowed, nil
}

// classify turns the apiserver's 401 into ErrUnauthorized, so callers
// can end the session.
func classify(doing string, err error) error {
	if apierrors.IsUnauthorized(err) {
		return fmt.Errorf("%s: %w", doing, ErrUnauthorized)
	}
	return fmt.Errorf("%s: %w", doing, err)
}
