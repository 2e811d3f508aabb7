package fakediscord

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// FaultKind is how an injected fault (see Server.Fail) shows itself.
type FaultKind int

// The faults Discord's API shows now and then.
const (
	// FaultHTML answers with a 5xx status (Fault.Status, default 503) and
	// an HTML body, as Cloudflare does; the request is not applied.
	FaultHTML FaultKind = iota + 1
	// FaultResetBefore drops the connection unanswered before the
	// request is applied.
	FaultResetBefore
	// FaultResetAfter applies the request (the message is posted or
	// edited) and then drops the connection, so the client sees a reset.
	FaultResetAfter
	// FaultSlow answers normally after Fault.Delay (or when the client
	// gives up first, without applying the request).
	FaultSlow
)

// Fault is a failure injected into the REST calls that match it: those
// with Method (any when empty) whose path, without the /api/vN prefix,
// starts with Path (e.g. "/channels/" for the channel message API,
// "/webhooks/" for interaction edits and follow-ups).
type Fault struct {
	Kind   FaultKind
	Method string
	Path   string
	// Times is how many matching calls fail; 0 with Share set means no
	// limit.
	Times int
	// Share, when above 0, is the probability that a matching call fails,
	// drawn from a generator seeded with Seed (so runs repeat).
	Share float64
	Seed  uint64
	// Status is FaultHTML's status; default 503.
	Status int
	// Delay is FaultSlow's delay.
	Delay time.Duration

	rng  *rand.Rand
	used int
}

// cloudflareHTML is the body of a FaultHTML answer.
const cloudflareHTML = `<!DOCTYPE html>
<html><head><title>discord.com | 503: Service temporarily unavailable</title></head>
<body><h1>Service temporarily unavailable</h1><p>cloudflare</p></body></html>
`

// Fail injects f into the REST calls that match it, from now on: the
// first Times of them (or a seeded Share) fail as f.Kind says. Faults
// are tried in the order they were added; a call meets at most one. The
// calls are recorded (Calls) with status 0 for a reset.
func (s *Server) Fail(f Fault) {
	if f.Kind == FaultHTML && f.Status == 0 {
		f.Status = http.StatusServiceUnavailable
	}
	if f.Share > 0 {
		f.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// ClearFaults removes every fault injected with Fail.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// faultLocked returns the fault a call of method on path meets, if any,
// and uses it up; s.mu must be held.
func (s *Server) faultLocked(method, path string) *Fault {
	for _, f := range s.faults {
		if f.Method != "" && f.Method != method || !strings.HasPrefix(path, f.Path) {
			continue
		}
		if f.Times > 0 && f.used >= f.Times || f.Times == 0 && f.Share <= 0 {
			continue
		}
		if f.Share > 0 && f.rng.Float64() >= f.Share {
			continue
		}
		f.used++
		return f
	}
	return nil
}

// serveFault answers r as f says, serving it with next where the fault
// lets it be applied.
func serveFault(f *Fault, w http.ResponseWriter, r *http.Request, next http.Handler) {
	switch f.Kind {
	case FaultHTML:
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(cloudflareHTML)) // the client may have gone
	case FaultResetBefore:
		hangUp(w)
	case FaultResetAfter:
		next.ServeHTTP(httptest.NewRecorder(), r)
		hangUp(w)
	case FaultSlow:
		select {
		case <-time.After(f.Delay):
			next.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	}
}

// nonceLifetime is how long Discord remembers an enforced nonce (a few
// minutes).
const nonceLifetime = 5 * time.Minute

// nonceEntry is the message first posted with an enforced nonce.
type nonceEntry struct {
	msg *message
	at  time.Time
}
