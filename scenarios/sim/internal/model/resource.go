package model

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Resource is the data the lock protects: the stock of one product. A client
// reads it, works, and writes back what it read minus one. With fencing, the
// token comes with every request, the read too, and the store refuses a
// write whose token is lower than one it has already seen: a write checked
// against earlier writes only would still let an old holder's write land
// between a newer holder's read and its write.
type Resource struct {
	Name     string
	Value    int
	Version  int // accepted writes so far
	MaxFence int64
	Rejected int
	initial  int  // the value before the first write
	written  bool // some write has come, accepted or not
	writers  []string
	Guard    trace.Guard
	Sold     map[int]bool // GuardUnique: the units sold (the stock each sale read)
	Owner    string       // GuardToken: the lock token the row was last stamped with
}

// Write is client writer's write of value, based on the read at version
// readVer; fence is its fencing token (0: none), token its lock token. With
// GuardRelative the write is a decrement of the stock as it is now: it
// lands as the current value minus one, and no update is lost.
func (r *Resource) Write(writer string, value, readVer int, fence int64, token string) narrate.WriteResult {
	if !r.written {
		r.initial, r.written = r.Value, true
	}
	res := narrate.WriteResult{Value: value, Fence: fence, MaxFence: r.MaxFence, ReadVer: readVer, Version: r.Version,
		Read: value + 1, Initial: r.initial, Stock: r.Value,
		Token: token, Owner: r.Owner, Stamped: r.Guard == trace.GuardToken, Relative: r.Guard == trace.GuardRelative,
		Idempotent: r.Guard == trace.GuardIdempotent}
	if fence > 0 && fence < r.MaxFence {
		r.Rejected++
		res.Rejected = true
		return res
	}
	if g := r.refuses(res.Read, readVer, token); g != trace.GuardNone {
		r.Rejected++
		res.Rejected, res.Guard = true, g
		return res
	}
	if r.Guard == trace.GuardUnique {
		if r.Sold == nil {
			r.Sold = map[int]bool{}
		}
		r.Sold[res.Read] = true
	}
	switch r.Guard {
	case trace.GuardRelative:
		value, res.Value = r.Value-1, r.Value-1
	case trace.GuardIdempotent:
		// The job's result, whatever the read: the one sale it records.
		value, res.Value = r.initial-1, r.initial-1
		res.Repeat = r.Version > 0
	default:
		res.LostUpdate = readVer != r.Version
	}
	if res.LostUpdate && readVer < len(r.writers) {
		res.Since = append([]string(nil), r.writers[readVer:]...)
	}
	r.Value = value
	r.Version++
	r.writers = append(r.writers, writer)
	r.MaxFence = max(r.MaxFence, fence)
	return res
}

// Read records the reader's fencing token (0: none) and, with GuardToken,
// stamps the row with its lock token.
func (r *Resource) Read(fence int64, token string) {
	r.MaxFence = max(r.MaxFence, fence)
	if r.Guard == trace.GuardToken {
		r.Owner = token
	}
}

func (r *Resource) State() trace.ResourceState {
	return trace.ResourceState{Name: r.Name, Value: r.Value, Version: r.Version,
		MaxFence: r.MaxFence, Rejected: r.Rejected}
}

// refuses returns the guard when it refuses a write based on a read of
// read at version readVer by the holder of lock token token, GuardNone
// when it lets the write through.
func (r *Resource) refuses(read, readVer int, token string) trace.Guard {
	switch r.Guard {
	case trace.GuardVersion:
		if readVer != r.Version {
			return r.Guard
		}
	case trace.GuardInStock, trace.GuardRelative:
		if r.Value <= 0 {
			return r.Guard
		}
	case trace.GuardUnique:
		if r.Sold[read] {
			return r.Guard
		}
	case trace.GuardToken:
		if token != r.Owner {
			return r.Guard
		}
	}
	return trace.GuardNone
}
