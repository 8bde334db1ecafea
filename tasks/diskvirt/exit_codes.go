package diskvirt

// Upstream's exit codes (it exits -1, -2, -3, which a shell sees as these):
// bad options, no appliance, and a failed run.
const (
	exitInvalidArguments = 255
	exitNoAppliance      = 254
	exitFailed           = 253
)
