package temporal

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/server/common/api"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

// claimMapper names the caller by its client certificate's subject common
// name; the frontend verified the certificate against the Temporal CA
// before. Bearer tokens are ignored: virtflow hands out none.
type claimMapper struct{}

// GetClaims maps the verified certificate to its identity.
func (claimMapper) GetClaims(info *authorization.AuthInfo) (*authorization.Claims, error) {
	if info == nil || info.TLSSubject == nil || info.TLSSubject.CommonName == "" {
		return nil, errors.New("the caller presented no client certificate with a common name")
	}
	return &authorization.Claims{Subject: info.TLSSubject.CommonName, AuthType: "mtls"}, nil
}

// authorizer lets each identity make only the calls its grant lists
// (contracts/temporalauth), in the server's own namespaces; an identity
// the policy does not know may make none, not even health checks.
type authorizer struct {
	// namespaces are where identities other than the admin may act.
	namespaces map[string]bool
	// log receives every refusal: a client that was refused is either
	// misconfigured or probing.
	log log.Logger
}

func newAuthorizer(namespaces []string, logger log.Logger) authorizer {
	a := authorizer{namespaces: map[string]bool{}, log: logger}
	for _, ns := range namespaces {
		a.namespaces[ns] = true
	}
	return a
}

var allow = authorization.Result{Decision: authorization.DecisionAllow}

func deny(reason string) authorization.Result {
	return authorization.Result{Decision: authorization.DecisionDeny, Reason: reason}
}

// Authorize decides one call, logging a refusal.
func (a authorizer) Authorize(_ context.Context, claims *authorization.Claims, target *authorization.CallTarget) (authorization.Result, error) {
	r := a.decide(claims, target)
	if r.Decision != authorization.DecisionAllow && a.log != nil {
		a.log.Warn("refused a Temporal call", tag.NewStringTag("api", target.APIName), tag.NewStringTag("reason", r.Reason))
	}
	return r, nil
}

func (a authorizer) decide(claims *authorization.Claims, target *authorization.CallTarget) authorization.Result {
	if claims == nil {
		return deny("no client certificate")
	}
	g, ok := grantOf(claims.Subject)
	if !ok {
		return deny(fmt.Sprintf("%q is not a virtflow identity", claims.Subject))
	}
	if g.All || authorization.IsHealthCheckAPI(target.APIName) {
		return allow
	}
	if target.Namespace != "" && !a.namespaces[target.Namespace] {
		return deny(fmt.Sprintf("%s may not act in namespace %q", claims.Subject, target.Namespace))
	}
	if permitted(g, target) {
		return allow
	}
	return deny(fmt.Sprintf("%s may not call %s with this request", claims.Subject, api.MethodName(target.APIName)))
}

// grantOf adds the server's own identities to virtflow's policy.
func grantOf(identity string) (temporalauth.Grant, bool) {
	switch identity {
	case systemIdentity:
		return temporalauth.Grant{All: true}, true
	case webUIIdentity:
		return temporalauth.Grant{Read: true}, true
	}
	return temporalauth.GrantOf(identity)
}

// permitted reports whether g covers the call: a read, a worker's call on
// its own queues, or an operator's on its own workflows and schedules.
// The operator and admin services are the admin's, but for listing
// search attributes, which readers need.
func permitted(g temporalauth.Grant, target *authorization.CallTarget) bool {
	service := api.ServiceName(target.APIName)
	readOnly := api.GetMethodMetadata(target.APIName).Access == api.AccessReadOnly
	if service == api.OperatorServicePrefix {
		return g.Read && readOnly
	}
	if service != api.WorkflowServicePrefix {
		return false
	}
	if g.Read && readOnly {
		return true
	}
	if ok, handled := workerCall(g, api.MethodName(target.APIName), target.Request); handled {
		return ok
	}
	return ownerCall(g, target.Request)
}
