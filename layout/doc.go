// Package layout holds the tests that keep virtflow's map true, as
// docs/architecture.md draws it: every folder has a place, dependencies point
// one way (cmd → {commands, embedded} → {operators, worker, node} →
// workflows → contracts → api, activities → contracts), no product's
// operators import another product's, workflows and contracts stay free of
// side effects, test-support packages stay out of the binaries, a workflow
// calling an activity with the wrong types does not compile, the
// README's layout table names the folders there are, and no role of
// deploy/ or of an operator grants what docs/trust.md forbids, every pod
// runs as its own account, and every operator may write (and grant) what
// it renders.
package layout
