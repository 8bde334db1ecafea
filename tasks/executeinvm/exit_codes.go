package executeinvm

// Upstream's exit codes (it exits -1, -2, -3, which a shell sees as these):
// bad options, a connection that cannot be set up (secret, client), and a
// failed action (start, connection, script, stop, delete).
const (
	exitInvalidArguments = 255
	exitInitialization   = 254
	exitActionFailed     = 253
)
