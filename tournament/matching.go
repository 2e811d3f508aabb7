package tournament

import "math/bits"

// maxMatching is the size of a maximum matching of the graph on the
// vertices of set with an edge between i and j when adj[i] has j, by
// Edmonds' blossom algorithm. The Swiss search uses it to prune branches
// that cannot be completed, once plain backtracking proves slow.
func maxMatching(set bitset, adj []bitset) int {
	var vs []int
	for w, v := range set {
		for v != 0 {
			vs = append(vs, w*64+bits.TrailingZeros64(v))
			v &= v - 1
		}
	}
	n := len(vs)
	g := make([][]int, n)
	for i, a := range vs {
		for j, b := range vs {
			if adj[a].has(b) {
				g[i] = append(g[i], j)
			}
		}
	}
	m := &blossom{g: g, match: make([]int, n), parent: make([]int, n), base: make([]int, n),
		used: make([]bool, n), inBlossom: make([]bool, n), onPath: make([]bool, n)}
	size := 0
	for i := range m.match {
		m.match[i] = -1
	}
	for v := range n { // a greedy start
		if m.match[v] >= 0 {
			continue
		}
		for _, u := range g[v] {
			if m.match[u] < 0 {
				m.match[u], m.match[v] = v, u
				size++
				break
			}
		}
	}
	for v := range n {
		if m.match[v] < 0 && m.augment(v) {
			size++
		}
	}
	return size
}

// blossom is the state of Edmonds' algorithm on a graph g of local
// vertices 0..n-1.
type blossom struct {
	g         [][]int
	match     []int // partner, or -1
	parent    []int // in the alternating tree, or -1
	base      []int // base of each vertex's blossom
	used      []bool
	inBlossom []bool
	onPath    []bool
	queue     []int
}

// augment looks for an augmenting path from the free vertex root, and
// flips it if found.
func (m *blossom) augment(root int) bool {
	for i := range m.g {
		m.used[i], m.parent[i], m.base[i] = false, -1, i
	}
	m.used[root] = true
	m.queue = append(m.queue[:0], root)
	for len(m.queue) > 0 {
		v := m.queue[0]
		m.queue = m.queue[1:]
		for _, to := range m.g[v] {
			if m.base[v] == m.base[to] || m.match[v] == to {
				continue
			}
			if to == root || m.match[to] >= 0 && m.parent[m.match[to]] >= 0 {
				m.contract(v, to)
				continue
			}
			if m.parent[to] >= 0 {
				continue
			}
			m.parent[to] = v
			if m.match[to] < 0 {
				for u := to; u >= 0; {
					pv := m.parent[u]
					next := m.match[pv]
					m.match[u], m.match[pv] = pv, u
					u = next
				}
				return true
			}
			m.used[m.match[to]] = true
			m.queue = append(m.queue, m.match[to])
		}
	}
	return false
}

// contract shrinks the blossom closed by the edge v-to into its base.
func (m *blossom) contract(v, to int) {
	b := m.lca(v, to)
	for i := range m.inBlossom {
		m.inBlossom[i] = false
	}
	m.markPath(v, b, to)
	m.markPath(to, b, v)
	for i := range m.g {
		if m.inBlossom[m.base[i]] {
			m.base[i] = b
			if !m.used[i] {
				m.used[i] = true
				m.queue = append(m.queue, i)
			}
		}
	}
}

// lca is the base of the blossom where the tree paths of a and b meet.
func (m *blossom) lca(a, b int) int {
	for i := range m.onPath {
		m.onPath[i] = false
	}
	for {
		a = m.base[a]
		m.onPath[a] = true
		if m.match[a] < 0 {
			break
		}
		a = m.parent[m.match[a]]
	}
	for {
		b = m.base[b]
		if m.onPath[b] {
			return b
		}
		b = m.parent[m.match[b]]
	}
}

// markPath marks the blossom bases on the path from v down to base b,
// hanging the path off child.
func (m *blossom) markPath(v, b, child int) {
	for m.base[v] != b {
		m.inBlossom[m.base[v]], m.inBlossom[m.base[m.match[v]]] = true, true
		m.parent[v] = child
		child = m.match[v]
		v = m.parent[m.match[v]]
	}
}
