// Package exitcode carries, on a step program's error, the exit code the
// program ends with: upstream's programs end with codes of their own for
// some failures, and cmd/virtflow-tasks exits with the ExitCode of the
// error's chain.
package exitcode

import "errors"

// Error is an error with the exit code the step program ends with.
type Error struct {
	err  error
	code int
}

// Error is the wrapped error's text: the code does not show.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap is the wrapped error.
func (e *Error) Unwrap() error { return e.err }

// ExitCode is the step program's exit code.
func (e *Error) ExitCode() int { return e.code }

// With gives err the exit code; nil stays nil.
func With(err error, code int) error {
	if err == nil {
		return nil
	}
	return &Error{err: err, code: code}
}

// Of is the exit code With gave err or an error in its chain, and whether
// there is one.
func Of(err error) (int, bool) {
	var coded *Error
	if errors.As(err, &coded) {
		return coded.code, true
	}
	return 0, false
}
