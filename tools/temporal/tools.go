//go:build tools

// Package tools pins the temporal CLI used to administer virtflow's Temporal
// server. It lives in its own module because it pins an older server.
package tools

import _ "github.com/temporalio/cli/cmd/temporal"
