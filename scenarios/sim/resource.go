package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

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

// write is client writer's write of value, based on the read at version
// readVer; fence is its fencing token (0: none), token its lock token. With
// GuardRelative the write is a decrement of the stock as it is now: it
// lands as the current value minus one, and no update is lost.
func (r *resource) write(writer string, value, readVer int, fence int64, token string) narrate.WriteResult {
	if !r.written {
		r.initial, r.written = r.value, true
	}
	res := narrate.WriteResult{Value: value, Fence: fence, MaxFence: r.maxFence, ReadVer: readVer, Version: r.version,
		Read: value + 1, Initial: r.initial, Stock: r.value,
		Token: token, Owner: r.owner, Stamped: r.guard == trace.GuardToken, Relative: r.guard == trace.GuardRelative}
	if fence > 0 && fence < r.maxFence {
		r.rejected++
		res.Rejected = true
		return res
	}
	if g := r.refuses(res.Read, readVer, token); g != trace.GuardNone {
		r.rejected++
		res.Rejected, res.Guard = true, g
		return res
	}
	if r.guard == trace.GuardUnique {
		if r.sold == nil {
			r.sold = map[int]bool{}
		}
		r.sold[res.Read] = true
	}
	if r.guard == trace.GuardRelative {
		value, res.Value = r.value-1, r.value-1
	} else {
		res.LostUpdate = readVer != r.version
	}
	if res.LostUpdate && readVer < len(r.writers) {
		res.Since = append([]string(nil), r.writers[readVer:]...)
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
