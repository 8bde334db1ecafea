package tasktest

import "sync"

// Progress records what a task reports it is alive with: Record serves as
// an Env's Progress, from any goroutine.
type Progress struct {
	mu      sync.Mutex
	details []string
}

// Record adds detail.
func (p *Progress) Record(detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.details = append(p.details, detail)
}

// Details are the details recorded so far, oldest first.
func (p *Progress) Details() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.details...)
}
