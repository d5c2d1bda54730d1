package sim

import "github.com/lockstep-sim/lockstep/scenarios/sim/trace"

// resource is the data the lock protects: the stock of one product. A client
// reads it, works, and writes back what it read minus one. With fencing, the
// token comes with every request, the read too, and the store refuses a
// write whose token is lower than one it has already seen: a write checked
// against earlier writes only would still let an old holder's write land
// between a newer holder's read and its write.
type resource struct {
	name     string
	value    int
	version  int // accepted writes so far
	maxFence int64
	rejected int
	initial  int  // the value before the first write
	written  bool // some write has come, accepted or not
	writers  []string
	guard    trace.Guard
	sold     map[int]bool // GuardUnique: the units sold (the stock each sale read)
	owner    string       // GuardToken: the lock token the row was last stamped with
}

// writeResult says what happened to one write.
type writeResult struct {
	value    int
	fence    int64
	maxFence int64
	rejected bool
	// guard is the resource guard that refused the write ("" when it was
	// accepted, or refused for its fencing token).
	guard      trace.Guard
	lostUpdate bool // accepted, but based on a read that another write had overtaken
	readVer    int
	version    int
	// read is the value the writer read; initial the resource's value
	// before any write.
	read, initial int
	// stock is the resource's value when the write came.
	stock int
	// since are the writers of the accepted writes after the read, in order.
	since []string
	// token is the writer's lock token and owner the token the row carries;
	// stamped says the row has them (GuardToken).
	token, owner string
	stamped      bool
	// relative says the write is a decrement of the stock as it is
	// (GuardRelative), not a value computed from the read.
	relative bool
}

// write is client writer's write of value, based on the read at version
// readVer; fence is its fencing token (0: none), token its lock token. With
// GuardRelative the write is a decrement of the stock as it is now: it
// lands as the current value minus one, and no update is lost.
func (r *resource) write(writer string, value, readVer int, fence int64, token string) writeResult {
	if !r.written {
		r.initial, r.written = r.value, true
	}
	res := writeResult{value: value, fence: fence, maxFence: r.maxFence, readVer: readVer, version: r.version,
		read: value + 1, initial: r.initial, stock: r.value,
		token: token, owner: r.owner, stamped: r.guard == trace.GuardToken, relative: r.guard == trace.GuardRelative}
	if fence > 0 && fence < r.maxFence {
		r.rejected++
		res.rejected = true
		return res
	}
	if g := r.refuses(res.read, readVer, token); g != trace.GuardNone {
		r.rejected++
		res.rejected, res.guard = true, g
		return res
	}
	if r.guard == trace.GuardUnique {
		if r.sold == nil {
			r.sold = map[int]bool{}
		}
		r.sold[res.read] = true
	}
	if r.guard == trace.GuardRelative {
		value, res.value = r.value-1, r.value-1
	} else {
		res.lostUpdate = readVer != r.version
	}
	if res.lostUpdate && readVer < len(r.writers) {
		res.since = append([]string(nil), r.writers[readVer:]...)
	}
	r.value = value
	r.version++
	r.writers = append(r.writers, writer)
	r.maxFence = max(r.maxFence, fence)
	return res
}

// read records the reader's fencing token (0: none) and, with GuardToken,
// stamps the row with its lock token.
func (r *resource) read(fence int64, token string) {
	r.maxFence = max(r.maxFence, fence)
	if r.guard == trace.GuardToken {
		r.owner = token
	}
}

func (r *resource) state() trace.ResourceState {
	return trace.ResourceState{Name: r.name, Value: r.value, Version: r.version,
		MaxFence: r.maxFence, Rejected: r.rejected}
}

// refuses returns the guard when it refuses a write based on a read of
// read at version readVer by the holder of lock token token, GuardNone
// when it lets the write through.
func (r *resource) refuses(read, readVer int, token string) trace.Guard {
	switch r.guard {
	case trace.GuardVersion:
		if readVer != r.version {
			return r.guard
		}
	case trace.GuardInStock, trace.GuardRelative:
		if r.value <= 0 {
			return r.guard
		}
	case trace.GuardUnique:
		if r.sold[read] {
			return r.guard
		}
	case trace.GuardToken:
		if token != r.owner {
			return r.guard
		}
	}
	return trace.GuardNone
}
