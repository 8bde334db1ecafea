// Package layout holds the test that keeps virtflow's dependency direction
// as ARCHITECTURE.md draws it: cmd → {operators, worker, embedded} →
// workflows → contracts → api, and activities → contracts, with nothing
// pointing back up.
package layout
