package executeinvm

// Upstream's exit codes (it exits -1, -2, -3, which a shell sees as these):
// bad options, a connection that cannot be set up (secret, client), and a
// failed action (start, connection, script, stop, delete).
const (
	exitInvalidArguments = 255
	exitInitialization   = 254
	exitActionFailed     = 253
)

// codedError is an error with the exit code the step program ends with.
type codedError struct {
	err  error
	code int
}

func (e *codedError) Error() string { return e.err.Error() }

func (e *codedError) Unwrap() error { return e.err }

// ExitCode is the step program's exit code.
func (e *codedError) ExitCode() int { return e.code }

// withCode gives err the exit code; nil stays nil.
func withCode(err error, code int) error {
	if err == nil {
		return nil
	}
	return &codedError{err: err, code: code}
}
