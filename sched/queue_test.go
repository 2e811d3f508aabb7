package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// queueModel runs random operations on a fairQueue and checks each
// result against plain references: the tasks held, in push order, and
// who is busy, for the properties the order of service must have; and a
// rotating list (turnOrder) for the exact order.
type queueModel struct {
	t    *testing.T
	r    *rand.Rand
	q    fairQueue
	ref  turnOrder
	seq  int
	busy map[string]bool

	groups, users []string

	held  []*task // waiting, in push order
	gone  []*task // popped or removed
	state map[*task]string
	seen  map[*task]int // by check, at stamp
	stamp int

	// A group (a user in a group) is continuously waiting as long as its
	// generation stays the same: it changes each time it goes from no
	// task to one.
	groupGen map[string]int
	userGen  map[userKey]int

	// At the last pop: the group served and the generation of every
	// group waiting then.
	lastGroup     string
	lastGroupGens map[string]int
	// Per group, at the last pop of one of its tasks: the user served
	// and the generation of every user of the group waiting then.
	lastUser map[string]servedUser
}

type userKey struct{ group, user string }

type servedUser struct {
	user     string
	groupGen int
	userGens map[userKey]int
}

func newQueueModel(t *testing.T, seed uint64) *queueModel {
	r := rand.New(rand.NewPCG(seed, 0x5c4ed))
	m := &queueModel{t: t, r: r, ref: newTurnOrder(), busy: map[string]bool{}, state: map[*task]string{}, seen: map[*task]int{},
		groupGen: map[string]int{}, userGen: map[userKey]int{}, lastUser: map[string]servedUser{}}
	for i := range 1 + r.IntN(5) {
		m.groups = append(m.groups, fmt.Sprint("g", i))
	}
	// Users are shared by the groups: a person is in several servers.
	for i := range 1 + r.IntN(6) {
		m.users = append(m.users, fmt.Sprint("u", i))
	}
	return m
}

func (m *queueModel) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf(format, args...)
}

func (m *queueModel) eligible(t *task) bool { return !m.busy[t.job.User] }

func (m *queueModel) count(pred func(*task) bool) int {
	n := 0
	for _, t := range m.held {
		if pred(t) {
			n++
		}
	}
	return n
}

func (m *queueModel) push() {
	g, u := m.groups[m.r.IntN(len(m.groups))], m.users[m.r.IntN(len(m.users))]
	if m.count(func(t *task) bool { return t.job.Group == g }) == 0 {
		m.groupGen[g]++
	}
	k := userKey{g, u}
	if m.count(func(t *task) bool { return t.job.Group == g && t.job.User == u }) == 0 {
		m.userGen[k]++
	}
	m.seq++
	t := &task{job: Job{Group: g, User: u}, queued: time.Unix(0, int64(m.seq))} // queued orders the tasks
	m.q.push(t)
	m.ref.push(t)
	m.held = append(m.held, t)
	m.state[t] = "waiting"
}

func (m *queueModel) take(t *task, how string) {
	m.held = slices.DeleteFunc(m.held, func(x *task) bool { return x == t })
	m.state[t] = how
	m.gone = append(m.gone, t)
}

func (m *queueModel) pop() {
	m.t.Helper()
	busy := map[string]int{}
	for u, b := range m.busy {
		if b {
			busy[u] = 1 + m.r.IntN(2) // a cancelled Yield's job can count twice
		}
	}
	got := m.q.pop(busy)
	if want := m.ref.pop(m.busy); got != want {
		m.fail("pop = %s, the turn order says %s", describe(got), describe(want))
	}
	anyEligible := m.count(m.eligible) > 0
	if got == nil {
		if anyEligible {
			m.fail("pop returned nothing with an eligible task waiting")
		}
		return
	}
	if st := m.state[got]; st != "waiting" {
		m.fail("pop returned a task that is %q", st)
	}
	if m.busy[got.job.User] {
		m.fail("pop returned a task of busy user %s", got.job.User)
	}
	g, u := got.job.Group, got.job.User
	// First come first served per user (in a group).
	for _, t := range m.held {
		if t.job.Group == g && t.job.User == u {
			if t != got {
				m.fail("pop returned %s/%s's task queued at %v before the one queued at %v", g, u, got.queued, t.queued)
			}
			break
		}
	}
	// Groups take turns: g served twice in a row only if no other group
	// waiting since before the first of the two pops has an eligible task.
	if g == m.lastGroup {
		for h, gen := range m.lastGroupGens {
			if h == g || m.groupGen[h] != gen {
				continue
			}
			if m.count(func(t *task) bool { return t.job.Group == h && m.eligible(t) }) > 0 {
				m.fail("group %s served twice in a row while %s, waiting since before, had an eligible task", g, h)
			}
		}
	}
	// Users take turns within a group, the same way.
	if last, ok := m.lastUser[g]; ok && last.user == u && last.groupGen == m.groupGen[g] {
		for k, gen := range last.userGens {
			if k.user == u || m.userGen[k] != gen {
				continue
			}
			if m.count(func(t *task) bool { return t.job.Group == g && t.job.User == k.user && m.eligible(t) }) > 0 {
				m.fail("user %s served twice in a row in %s while %s, waiting since before, had an eligible task", u, g, k.user)
			}
		}
	}
	// Remember who waited at this pop.
	m.lastGroup, m.lastGroupGens = g, map[string]int{}
	userGens := map[userKey]int{}
	for _, t := range m.held {
		m.lastGroupGens[t.job.Group] = m.groupGen[t.job.Group]
		if t.job.Group == g {
			k := userKey{g, t.job.User}
			userGens[k] = m.userGen[k]
		}
	}
	m.lastUser[g] = servedUser{user: u, groupGen: m.groupGen[g], userGens: userGens}

	m.take(got, "popped")
	// As in a Pool, the user of a task popped is usually busy running it.
	if m.r.IntN(3) > 0 {
		m.busy[u] = true
	}
}

func (m *queueModel) remove() {
	if len(m.held) == 0 {
		return
	}
	t := m.held[m.r.IntN(len(m.held))]
	m.q.remove(t)
	m.ref.remove(t)
	m.take(t, "removed")
}

// removeGone removes a task already popped or removed: nothing changes.
func (m *queueModel) removeGone() {
	if len(m.gone) == 0 {
		return
	}
	m.q.remove(m.gone[m.r.IntN(len(m.gone))])
}

func (m *queueModel) toggleBusy() {
	u := m.users[m.r.IntN(len(m.users))]
	m.busy[u] = !m.busy[u]
}

// check compares the queue's structure with the model.
func (m *queueModel) check() {
	m.t.Helper()
	q := &m.q
	if q.n != len(m.held) {
		m.fail("n = %d, but %d tasks are waiting", q.n, len(m.held))
	}
	if len(q.groups) != len(q.index) {
		m.fail("%d groups in turn but %d in the index", len(q.groups), len(q.index))
	}
	if len(q.groups) > 0 && (q.next < 0 || q.next >= len(q.groups)) || len(q.groups) == 0 && q.next != 0 {
		m.fail("next = %d with %d groups", q.next, len(q.groups))
	}
	m.stamp++
	inQueue := 0
	for _, g := range q.groups {
		if q.index[g.name] != g {
			m.fail("group %s is not indexed", g.name)
		}
		if len(g.users) == 0 || len(g.users) != len(g.index) {
			m.fail("group %s has %d users in turn and %d in the index", g.name, len(g.users), len(g.index))
		}
		if g.next < 0 || g.next >= len(g.users) {
			m.fail("group %s: next = %d with %d users", g.name, g.next, len(g.users))
		}
		for _, u := range g.users {
			if g.index[u.name] != u || len(u.tasks) == 0 {
				m.fail("group %s: user %s not indexed or with no task", g.name, u.name)
			}
			for _, t := range u.tasks {
				if t.job.Group != g.name || t.job.User != u.name {
					m.fail("task of %s/%s in the queue of %s/%s", t.job.Group, t.job.User, g.name, u.name)
				}
			}
			for _, t := range u.tasks {
				if m.state[t] != "waiting" || m.seen[t] == m.stamp {
					m.fail("the queue holds a task that is %s, or holds it twice", m.state[t])
				}
				m.seen[t] = m.stamp
			}
			inQueue += len(u.tasks)
		}
	}
	if inQueue != len(m.held) {
		m.fail("the queue holds %d tasks, not the %d waiting", inQueue, len(m.held))
	}
}

func TestFairQueueModel(t *testing.T) {
	for seed := range uint64(300) {
		m := newQueueModel(t, seed)
		steps := 40 + m.r.IntN(200)
		for range steps {
			switch x := m.r.IntN(100); {
			case x < 45:
				m.push()
			case x < 75:
				m.pop()
			case x < 85:
				m.remove()
			case x < 90:
				m.removeGone()
			default:
				m.toggleBusy()
			}
			m.check()
			if t.Failed() {
				t.Fatalf("seed %d", seed)
			}
		}
		// Drain: with nobody busy, every task left comes out once.
		clear(m.busy)
		for len(m.held) > 0 {
			m.pop()
			clear(m.busy)
			m.check()
		}
		if got := m.q.pop(nil); got != nil {
			t.Fatalf("seed %d: pop on an empty queue returned a task", seed)
		}
		for tk, st := range m.state {
			if st == "waiting" {
				t.Fatalf("seed %d: task of %s/%s never came out", seed, tk.job.Group, tk.job.User)
			}
		}
		if len(m.q.groups) != 0 || len(m.q.index) != 0 || m.q.n != 0 {
			t.Fatalf("seed %d: the drained queue still holds %d groups, %d indexed, n = %d",
				seed, len(m.q.groups), len(m.q.index), m.q.n)
		}
	}
}

func TestFairQueueEmpty(t *testing.T) {
	var q fairQueue
	if got := q.pop(nil); got != nil {
		t.Errorf("pop on the zero queue = %v, want nil", got)
	}
	q.remove(&task{job: Job{Group: "g", User: "u"}}) // not there: no effect
	if q.n != 0 {
		t.Errorf("n = %d after removing from an empty queue", q.n)
	}
}

func TestFairQueueAllBusy(t *testing.T) {
	var q fairQueue
	a := &task{job: Job{Group: "g", User: "a"}}
	b := &task{job: Job{Group: "h", User: "a"}}
	q.push(a)
	q.push(b)
	if got := q.pop(map[string]int{"a": 1}); got != nil {
		t.Fatalf("pop with the only user busy returned a task")
	}
	if q.n != 2 {
		t.Fatalf("n = %d, want 2", q.n)
	}
	if got := q.pop(nil); got != a {
		t.Fatalf("pop = %v, want the first task", got)
	}
}

// turnOrder is the reference order of service, with no index arithmetic:
// lists in turn order, where serving someone moves everyone up to them
// (those skipped as busy included) to the back, and a newcomer joins at
// the back.
type turnOrder struct {
	groups []string
	users  map[string][]string
	tasks  map[userKey][]*task
}

func newTurnOrder() turnOrder {
	return turnOrder{users: map[string][]string{}, tasks: map[userKey][]*task{}}
}

func (o *turnOrder) push(t *task) {
	g, u := t.job.Group, t.job.User
	if len(o.users[g]) == 0 {
		o.groups = append(o.groups, g)
	}
	k := userKey{g, u}
	if len(o.tasks[k]) == 0 {
		o.users[g] = append(o.users[g], u)
	}
	o.tasks[k] = append(o.tasks[k], t)
}

// rotate moves s[:i+1] to the back of s, dropping s[i] unless keep.
func rotate(s []string, i int, keep bool) []string {
	r := slices.Concat(s[i+1:], s[:i])
	if keep {
		r = append(r, s[i])
	}
	return r
}

func (o *turnOrder) pop(busy map[string]bool) *task {
	for gi, g := range o.groups {
		for ui, u := range o.users[g] {
			if busy[u] {
				continue
			}
			k := userKey{g, u}
			t := o.tasks[k][0]
			o.tasks[k] = o.tasks[k][1:]
			o.users[g] = rotate(o.users[g], ui, len(o.tasks[k]) > 0)
			o.groups = rotate(o.groups, gi, len(o.users[g]) > 0)
			return t
		}
	}
	return nil
}

func (o *turnOrder) remove(t *task) {
	g, u := t.job.Group, t.job.User
	k := userKey{g, u}
	o.tasks[k] = slices.DeleteFunc(o.tasks[k], func(x *task) bool { return x == t })
	if len(o.tasks[k]) == 0 {
		o.users[g] = slices.DeleteFunc(o.users[g], func(x string) bool { return x == u })
	}
	if len(o.users[g]) == 0 {
		o.groups = slices.DeleteFunc(o.groups, func(x string) bool { return x == g })
	}
}

func describe(t *task) string {
	if t == nil {
		return "nothing"
	}
	return fmt.Sprintf("%s/%s's task #%d", t.job.Group, t.job.User, t.queued.UnixNano())
}
