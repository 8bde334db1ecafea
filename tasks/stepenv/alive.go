package stepenv

import "time"

// KeepAlive reports detail every interval until the returned stop is
// called: a tool or a script may run long without anything to report,
// and the durable tasks' heartbeat must not lapse meanwhile.
func (e Env) KeepAlive(detail string, every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				e.Alive(detail)
			}
		}
	}()
	return func() { close(done) }
}
