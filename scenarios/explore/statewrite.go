package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
)

// writer writes one state as Hash identifies it, with client i named as
// client perm[i] and written in that order, and with nodes symmetric, node
// order[k] named and written as the k-th.
type writer struct {
	st    view.State
	perm  []int
	tok   *tokenNames
	nodes bool
	b     strings.Builder
	// bound and below are stateUnder's: the writing to beat, and whether
	// this one already sorts before it.
	bound string
	below bool
	// index finds a client by name; order is the nodes' order, pos[j]
	// where logical node j is written; nodeOf finds a logical node by its
	// server's name.
	index  map[string]int
	order  []int
	pos    []int
	nodeOf map[string]int
}

func newWriter(st view.State, perm []int, tok *tokenNames, nodes bool) *writer {
	w := &writer{st: st, perm: perm, tok: tok, nodes: nodes,
		index: make(map[string]int, len(st.Clients)), nodeOf: make(map[string]int, len(st.Nodes))}
	for i, c := range st.Clients {
		w.index[c.Name] = i
	}
	for j, n := range st.Nodes {
		w.nodeOf[st.Servers[n.Server].Name] = j
	}
	w.order = w.nodeOrder()
	w.pos = make([]int, len(w.order))
	for k, j := range w.order {
		w.pos[j] = k
	}
	return w
}

func rel(d time.Duration) string { return strconv.FormatInt(int64(d), 36) }

// rename writes a client's name, or an actor's ("A.watchdog", the flight
// "A/redis-3"), as its image under perm.
func (w *writer) rename(name string) string {
	head := name
	if i := strings.IndexAny(name, "./"); i >= 0 {
		head = name[:i]
	}
	if i, ok := w.index[head]; ok {
		return w.st.Clients[w.perm[i]].Name + strings.TrimPrefix(name, head)
	}
	return name
}

// node names logical node j where it is written.
func (w *writer) node(j int) string {
	if w.nodes {
		return "n" + strconv.Itoa(w.pos[j])
	}
	return w.st.Servers[w.st.Nodes[j].Server].Name
}

// renameNode renames an actor and the node its flight goes to
// ("A/redis-3" → "B/n0").
func (w *writer) renameNode(name string) string {
	name = w.rename(name)
	if !w.nodes {
		return name
	}
	head, srv, ok := strings.Cut(name, "/")
	if !ok {
		return name
	}
	srv, dup, _ := strings.Cut(srv, "#")
	if j, ok := w.nodeOf[srv]; ok {
		srv = w.node(j)
	}
	if dup != "" {
		srv += "#" + dup
	}
	return head + "/" + srv
}

// nodeOrder is the order state writes the logical nodes in: the identity,
// or, with nodes symmetric, sorted by what each node holds and has been
// through, written with the clients renamed and its own flights' node
// named "." — a key of the node alone, whatever its name.
func (w *writer) nodeOrder() []int {
	order := make([]int, len(w.st.Nodes))
	for i := range order {
		order[i] = i
	}
	if !w.nodes {
		return order
	}
	keys := make([]string, len(order))
	for i, n := range w.st.Nodes {
		srv := w.st.Servers[n.Server]
		// Tokens named in the order this node's keys show them.
		own := &tokenNames{is: w.tok.is, names: map[string]string{}}
		var b strings.Builder
		fmt.Fprintf(&b, "%v %s %d %d|", srv.Up, srv.Role, srv.Ahead, srv.Latency)
		w.struckNode(&b, i)
		for _, k := range srv.Keys {
			writer := strings.Replace(w.rename(k.Writer), "/"+srv.Name, "/.", 1)
			fmt.Fprintf(&b, "%s=%s/%s/%d/%s;", k.Key, k.Type, own.value(k), k.TTL, writer)
		}
		keys[i] = b.String()
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(keys[x], keys[y]) })
	return order
}

// state writes the whole state.
func (w *writer) state() string {
	s, _ := w.stateUnder("")
	return s
}

// stateUnder is state, given up (false) as soon as what it has written
// already sorts after bound: Hash keeps the least of a state's writings
// under its symmetries, and one that starts greater cannot be it. An empty
// bound gives nothing up.
func (w *writer) stateUnder(bound string) (string, bool) {
	w.bound = bound
	w.servers()
	w.faults()
	w.repl()
	if w.over() {
		return "", false
	}
	clients := w.clients()
	if w.over() {
		return "", false
	}
	w.actors()
	if w.over() {
		return "", false
	}
	r := w.st.Resource
	fmt.Fprintf(&w.b, "Q%d %d %d %d|", r.Value, r.Version, r.MaxFence, r.Rejected)
	if r.TokenGuard {
		w.b.WriteString(claimClasses(clients, r.Owner))
	}
	for _, u := range r.Sold {
		fmt.Fprintf(&w.b, "u%d ", u)
	}
	for _, broken := range w.st.Broken {
		fmt.Fprintf(&w.b, "%v", broken)
	}
	if w.st.Orphan {
		w.b.WriteString("orphan " + rel(w.st.OrphanFor))
	}
	return w.b.String(), true
}

// over says whether what w has written so far sorts after as much of its
// bound: then so does the whole of it. Once it sorts before, it is not
// asked again.
func (w *writer) over() bool {
	if w.bound == "" || w.below {
		return false
	}
	done := w.b.String()
	n := min(len(done), len(w.bound))
	switch strings.Compare(done[:n], w.bound[:n]) {
	case -1:
		w.below = true
	case 1:
		return true
	}
	return false
}

// servers writes every server and its keys, in the nodes' order when they
// are symmetric.
func (w *writer) servers() {
	servers := make([]int, 0, len(w.st.Servers))
	if w.nodes {
		for _, j := range w.order {
			servers = append(servers, w.st.Nodes[j].Server)
		}
	} else {
		for i := range w.st.Servers {
			servers = append(servers, i)
		}
	}
	for _, si := range servers {
		srv := w.st.Servers[si]
		name := srv.Name
		if w.nodes {
			name = w.node(w.nodeOf[srv.Name])
		}
		fmt.Fprintf(&w.b, "S%s %v %s %d %d|", name, srv.Up, srv.Role, srv.Ahead, srv.Latency)
		for _, k := range srv.Keys {
			fmt.Fprintf(&w.b, "%s=%s/%s/%d/%s;", k.Key, k.Type, w.tok.value(k), k.TTL, w.renameNode(k.Writer))
		}
	}
}

// faults writes what the faults have left behind, fault by fault in their
// order: whom each has struck, by where it is written (a client by its
// image, a node by its position), and when each is due.
func (w *writer) faults() {
	for _, m := range w.st.Faults {
		if len(m.Struck) == 0 {
			continue
		}
		struck := slices.Clone(m.Struck)
		slices.SortFunc(struck, func(x, y view.Strike) int { return w.target(m.By, x.Target) - w.target(m.By, y.Target) })
		fmt.Fprintf(&w.b, "F%s", m.Fault)
		for _, x := range struck {
			fmt.Fprintf(&w.b, " %d %s", w.target(m.By, x.Target), rel(x.DueIn))
		}
		w.b.WriteString("|")
	}
}

// target is where a fault's target is written: a client's image, a
// logical node's position.
func (w *writer) target(by view.Keyed, i int) int {
	if by == view.KeyedByClient {
		return w.perm[i]
	}
	return w.pos[i]
}

// struckNode writes, for nodeOrder's key of logical node j, the faults
// that have struck it, and when each is due.
func (w *writer) struckNode(b *strings.Builder, j int) {
	for _, m := range w.st.Faults {
		if m.By != view.KeyedByNode {
			continue
		}
		for _, x := range m.Struck {
			if x.Target == j {
				fmt.Fprintf(b, "%s %s;", m.Fault, rel(x.DueIn))
			}
		}
	}
	b.WriteString("|")
}

func (w *writer) repl() {
	for _, e := range w.st.Repl {
		// The writer goes with the write: the replica's key names it once
		// the write lands, for the ownership invariant after a failover.
		fmt.Fprintf(&w.b, "R%d %s %v %s %s %s %s %s;", e.Replica, e.Key, e.Deleted, w.tok.value(e.Value), rel(e.DueIn), rel(e.ExpireIn),
			e.Value.Type, w.renameNode(e.Value.Writer))
	}
}

// clients writes the clients in the order of their images, and returns
// them in that order.
func (w *writer) clients() []view.ClientView {
	clients := slices.Clone(w.st.Clients)
	for i, c := range w.st.Clients {
		clients[w.perm[i]] = c
	}
	for _, c := range clients {
		fmt.Fprintf(&w.b, "C%s %s %s %s %d %v %v %v %d %d %d %v|", w.rename(c.Name), c.Belief, c.Op, w.tok.name(c.Token), c.Fence,
			c.Paused, c.Crashed, c.Hung, c.Count, c.ReadVal, c.ReadVer, c.Lost)
		if c.Attempts > 0 {
			fmt.Fprintf(&w.b, "t%d ", c.Attempts)
		}
		if c.Reentering {
			w.b.WriteString("e ")
		}
		// Leases whose key is gone (those of keys still there, the keys
		// show).
		gone := make([]string, 0, len(c.GoneLeases))
		for _, l := range c.GoneLeases {
			where := w.st.Servers[l.Server].Name
			if j, ok := w.nodeOf[where]; ok && w.nodes {
				where = w.node(j)
			}
			gone = append(gone, where+":"+rel(l.EndsIn))
		}
		slices.Sort(gone)
		for _, g := range gone {
			w.b.WriteString("l" + g + " ")
		}
		for _, i := range w.positions(c.Cut) {
			fmt.Fprintf(&w.b, "x%d ", i)
		}
		for _, i := range w.positions(c.Mute) {
			fmt.Fprintf(&w.b, "m%d ", i)
		}
	}
	return clients
}

// positions is where logical nodes are written, sorted.
func (w *writer) positions(nodes []int) []int {
	out := make([]int, len(nodes))
	for i, j := range nodes {
		out[i] = w.pos[j]
	}
	slices.Sort(out)
	return out
}

// actors writes the actors by their client's image; a client's flights,
// whose order of creation follows their nodes', by their renamed names.
func (w *writer) actors() {
	actors := slices.Clone(w.st.Actors)
	slices.SortStableFunc(actors, func(x, y view.ActorView) int {
		if d := w.perm[x.Client] - w.perm[y.Client]; d != 0 || !w.nodes || !x.Flight || !y.Flight {
			return d
		}
		return strings.Compare(w.renameNode(x.Name), w.renameNode(y.Name))
	})
	for _, a := range actors {
		fmt.Fprintf(&w.b, "A%s %d %d %s %v %v", w.renameNode(a.Name), a.State, a.Park, a.Point, a.Held, a.Queued)
		if a.Ended {
			// Its context ended while its client was stopped.
			w.b.WriteString(" ended")
		}
		if a.Sent {
			w.b.WriteString(" sent")
		}
		if a.Orphan {
			w.b.WriteString(" orphan")
		}
		if a.Waiting {
			fmt.Fprintf(&w.b, " W%d %d", a.WaitWant, a.WaitAhead)
		}
		if a.Gated {
			fmt.Fprintf(&w.b, " %d %s", w.pos[a.Node], w.tok.command(a.Cmd))
		}
		if a.Watching {
			w.b.WriteString(" watch " + rel(a.WatchedAgo))
		}
		switch {
		case a.Sleeping:
			w.b.WriteString(" " + rel(a.SleepIn))
			if a.OnItsWay {
				// On its way to a slow server: what it will run there.
				fmt.Fprintf(&w.b, " %d %s", w.pos[a.Node], w.tok.command(a.Cmd))
			}
		case a.Waking && !w.st.ClockFree:
			// Lock code reads the clock when it wakes (Redlock's start
			// time), or sets a timer of its own then: how long ago that
			// was is part of the state — also while it waits for its
			// nodes' answers, parked at the gate in goroutines of its
			// own. A lock that keeps no time remembers none of it.
			w.b.WriteString(" woke " + rel(a.WokeAgo))
		}
		w.b.WriteString("|")
	}
}
