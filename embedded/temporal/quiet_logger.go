package temporal

// quietLogger drops the SDK client's log lines while the readiness probe
// retries, which would otherwise print a warning per attempt.
type quietLogger struct{}

func (quietLogger) Debug(string, ...interface{}) {}
func (quietLogger) Info(string, ...interface{})  {}
func (quietLogger) Warn(string, ...interface{})  {}
func (quietLogger) Error(string, ...interface{}) {}
