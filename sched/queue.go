package sched

// fairQueue holds the waiting tasks of one class: groups (servers) take
// turns, users take turns within their group, and each user's tasks are
// first come first served. The zero value is an empty queue.
type fairQueue struct {
	n      int
	groups []*groupQueue // in turn order; the next turn is groups[next]
	next   int
	index  map[string]*groupQueue
}

// groupQueue is one group's users in turn order.
type groupQueue struct {
	name  string
	users []*userQueue
	next  int
	index map[string]*userQueue
}

// userQueue is one user's waiting tasks, oldest first.
type userQueue struct {
	name  string
	tasks []*task
}

func (q *fairQueue) push(t *task) {
	if q.index == nil {
		q.index = map[string]*groupQueue{}
	}
	g := q.index[t.job.Group]
	if g == nil {
		g = &groupQueue{name: t.job.Group, index: map[string]*userQueue{}}
		q.index[g.name] = g
		// A newcomer takes its turn after everyone waiting now.
		q.groups = insertBefore(q.groups, q.next, g)
		q.next = (q.next + 1) % len(q.groups)
	}
	u := g.index[t.job.User]
	if u == nil {
		u = &userQueue{name: t.job.User}
		g.index[u.name] = u
		g.users = insertBefore(g.users, g.next, u)
		g.next = (g.next + 1) % len(g.users)
	}
	u.tasks = append(u.tasks, t)
	q.n++
}

// insertBefore inserts v at index i of s (the position just before the
// element whose turn is next), so v's turn comes last in the round.
func insertBefore[T any](s []T, i int, v T) []T {
	if len(s) == 0 {
		return []T{v}
	}
	s = append(s, v)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// pop removes and returns the next task whose user is not busy (holds no
// slot), taking groups and users in turn; nil if there is none.
func (q *fairQueue) pop(busy map[string]int) *task {
	for gi := range len(q.groups) {
		g := q.groups[(q.next+gi)%len(q.groups)]
		for ui := range len(g.users) {
			k := (g.next + ui) % len(g.users)
			u := g.users[k]
			if busy[u.name] > 0 {
				continue
			}
			t := u.tasks[0]
			u.tasks = u.tasks[1:]
			q.n--
			g.next = k + 1
			if len(u.tasks) == 0 {
				g.users = append(g.users[:k], g.users[k+1:]...)
				delete(g.index, u.name)
				g.next = k
			}
			q.advance(g)
			return t
		}
	}
	return nil
}

// advance moves the group turn past g, dropping g when it is empty.
func (q *fairQueue) advance(g *groupQueue) {
	i := 0
	for q.groups[i] != g {
		i++
	}
	q.next = i + 1
	if len(g.users) == 0 {
		q.groups = append(q.groups[:i], q.groups[i+1:]...)
		delete(q.index, g.name)
		q.next = i
	} else if g.next >= len(g.users) {
		g.next = 0
	}
	if len(q.groups) > 0 {
		q.next %= len(q.groups)
	} else {
		q.next = 0
	}
}

// remove takes t out of the queue (a job cancelled while waiting).
func (q *fairQueue) remove(t *task) {
	g := q.index[t.job.Group]
	if g == nil {
		return
	}
	u := g.index[t.job.User]
	if u == nil {
		return
	}
	for i, x := range u.tasks {
		if x == t {
			u.tasks = append(u.tasks[:i], u.tasks[i+1:]...)
			q.n--
			break
		}
	}
	if len(u.tasks) > 0 {
		return
	}
	for i, x := range g.users {
		if x == u {
			g.users = append(g.users[:i], g.users[i+1:]...)
			if g.next > i {
				g.next--
			}
			break
		}
	}
	delete(g.index, u.name)
	if g.next >= len(g.users) {
		g.next = 0
	}
	if len(g.users) > 0 {
		return
	}
	for i, x := range q.groups {
		if x == g {
			q.groups = append(q.groups[:i], q.groups[i+1:]...)
			if q.next > i {
				q.next--
			}
			break
		}
	}
	delete(q.index, g.name)
	if q.next >= len(q.groups) {
		q.next = 0
	}
}
