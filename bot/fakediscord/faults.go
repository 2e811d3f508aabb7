package fakediscord

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
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
	// FaultRateLimit answers 429 Too Many Requests as Discord does: a JSON
	// body with retry_after (Fault.RetryAfter, default 50 ms, in seconds)
	// and global (Fault.Global), and the X-RateLimit-* headers of an
	// exhausted bucket (X-RateLimit-Global and X-RateLimit-Scope: global
	// for a global limit) with Retry-After; the request is not applied.
	// discordgo waits it out and sends the request again.
	FaultRateLimit
)

// defaultRetryAfter is FaultRateLimit's retry_after when Fault.RetryAfter
// is not set.
const defaultRetryAfter = 50 * time.Millisecond

// Fault is a failure injected into the REST calls that match it: those
// with Method (any when empty) whose path, without the /api/vN prefix,
// starts with Path (e.g. "/channels/" for the channel message API,
// "/webhooks/" for interaction edits and follow-ups).
type Fault struct {
	Kind FaultKind
	// Mix, when set, replaces Kind: each call that fails fails as one of
	// these kinds, drawn with the fault's generator (seeded with Seed).
	Mix    []FaultKind
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
	// RetryAfter is FaultRateLimit's retry_after; Global makes it a
	// global rate limit (every route waits), else the route's bucket.
	RetryAfter time.Duration
	Global     bool

	rng  *rand.Rand
	used int
}

// kind is how the call that meets f fails; s.mu must be held.
func (f *Fault) kind() FaultKind {
	if len(f.Mix) == 0 {
		return f.Kind
	}
	return f.Mix[f.rng.IntN(len(f.Mix))]
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
// It returns a func that removes f again (the others stay).
func (s *Server) Fail(f Fault) (remove func()) {
	if f.Status == 0 {
		f.Status = http.StatusServiceUnavailable
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = defaultRetryAfter
	}
	f.Mix = append([]FaultKind(nil), f.Mix...)
	f.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	p := &f
	s.mu.Lock()
	s.faults = append(s.faults, p)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, g := range s.faults {
			if g == p {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// Outage makes every REST call fail, as in a full outage of Discord's
// API, until the returned func ends it (or ClearFaults): each answered
// by a 5xx with an HTML body (500, 502 or 503) or a reset before it is
// applied, drawn from a generator seeded with seed. The gateway stays
// up, so interactions still arrive (and their answers fail).
func (s *Server) Outage(seed uint64) (end func()) {
	var ends []func()
	for i, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable} {
		// Each call meets the first of these that draws it; the last
		// takes every call left.
		share := 1 / float64(4-i)
		ends = append(ends, s.Fail(Fault{Kind: FaultHTML, Status: status, Share: share, Seed: seed + uint64(i)}))
	}
	ends = append(ends, s.Fail(Fault{Kind: FaultResetBefore, Share: 1, Seed: seed + 3}))
	return func() {
		for _, e := range ends {
			e()
		}
	}
}

// ClearFaults removes every fault injected with Fail.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// faultLocked returns the fault a call of method on path meets, if any,
// and how it fails, and uses it up; s.mu must be held.
func (s *Server) faultLocked(method, path string) (*Fault, FaultKind) {
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
		return f, f.kind()
	}
	return nil, 0
}

// serveFault answers r as f says, serving it with next where the fault
// lets it be applied.
func serveFault(f *Fault, kind FaultKind, w http.ResponseWriter, r *http.Request, next http.Handler) {
	switch kind {
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
	case FaultRateLimit:
		secs := f.RetryAfter.Seconds()
		after := strconv.FormatFloat(secs, 'f', 3, 64)
		h := w.Header()
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset-After", after)
		h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(time.Now().Add(f.RetryAfter).UnixMilli())/1000, 'f', 3, 64))
		h.Set("Retry-After", strconv.Itoa(int(max(1, secs+0.999))))
		scope := "user"
		if f.Global {
			h.Set("X-RateLimit-Global", "true")
			scope = "global"
		}
		h.Set("X-RateLimit-Scope", scope)
		body, _ := json.Marshal(map[string]any{"message": "You are being rate limited.", "retry_after": secs,
			"global": f.Global, "code": 0})
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write(body) // the client may have gone
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
