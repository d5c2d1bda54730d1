package web

import (
	"encoding/json"
	"reflect"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A page embeds each trace with its snapshots as changes: an event's
// snapshot holds a server, a client or the resource only when it differs
// from the previous event's (docs/trace-schema.md, "In a player page").
// Most events touch one server or none, so the widest lesson's run, nine
// servers a snapshot, embeds about a tenth of its snapshots' bytes, and
// the browser, which shares what did not change between events, holds a
// tenth of their objects. EmbeddedTraces makes the whole snapshots again.

// pageTrace is a trace as a page embeds it.
type pageTrace struct {
	*trace.Trace
	Events []pageEvent `json:"events"`
}

// pageEvent is an event whose snapshot holds what changed.
type pageEvent struct {
	trace.Event
	Snap changes `json:"snapshot"`
}

// changes is a snapshot beside the previous one: Servers and Clients are
// left out when every entry is as before, and otherwise hold null for an
// entry that is; Resource is left out when it is as before.
type changes struct {
	Servers  []*trace.ServerState `json:"servers,omitempty"`
	Clients  []*trace.ClientState `json:"clients,omitempty"`
	Resource *trace.ResourceState `json:"resource,omitempty"`
}

// asChanges is tr as a page embeds it.
func asChanges(tr *trace.Trace) pageTrace {
	out := pageTrace{Trace: tr, Events: make([]pageEvent, len(tr.Events))}
	for i, e := range tr.Events {
		out.Events[i].Event = e
		var prev *trace.Snapshot
		if i > 0 {
			prev = &tr.Events[i-1].Snap
		}
		out.Events[i].Snap = changed(prev, &tr.Events[i].Snap)
	}
	return out
}

// changed is now's entries that differ from prev's (all of them when prev
// is nil).
func changed(prev, now *trace.Snapshot) changes {
	var c changes
	if prev == nil || !reflect.DeepEqual(prev.Resource, now.Resource) {
		c.Resource = &now.Resource
	}
	c.Servers = entries(prev, now.Servers, func(p *trace.Snapshot) []trace.ServerState { return p.Servers })
	c.Clients = entries(prev, now.Clients, func(p *trace.Snapshot) []trace.ClientState { return p.Clients })
	return c
}

// entries is now with nil for each entry equal to the previous
// snapshot's at its index, or nil when every entry is and there are as
// many.
func entries[T any](prev *trace.Snapshot, now []T, of func(*trace.Snapshot) []T) []*T {
	var before []T
	if prev != nil {
		before = of(prev)
	}
	out := make([]*T, len(now))
	same := prev != nil && len(before) == len(now)
	for k := range now {
		if prev != nil && k < len(before) && reflect.DeepEqual(before[k], now[k]) {
			continue
		}
		out[k], same = &now[k], false
	}
	if same {
		return nil
	}
	return out
}

// wholeTrace reads a trace a page embeds back into the JSON play
// --format json writes (compact).
func wholeTrace(data []byte) (json.RawMessage, error) {
	var pt struct {
		trace.Trace
		Events []pageEvent `json:"events"`
	}
	if err := json.Unmarshal(data, &pt); err != nil {
		return nil, err
	}
	tr := pt.Trace
	tr.Events = make([]trace.Event, len(pt.Events))
	for i, e := range pt.Events {
		tr.Events[i] = e.Event
		var prev trace.Snapshot
		if i > 0 {
			prev = tr.Events[i-1].Snap
		}
		tr.Events[i].Snap = e.Snap.on(prev)
	}
	return json.Marshal(&tr)
}

// on is the whole snapshot these changes make of prev.
func (c changes) on(prev trace.Snapshot) trace.Snapshot {
	s := trace.Snapshot{Servers: prev.Servers, Clients: prev.Clients, Resource: prev.Resource}
	if c.Servers != nil {
		s.Servers = apply(prev.Servers, c.Servers)
	}
	if c.Clients != nil {
		s.Clients = apply(prev.Clients, c.Clients)
	}
	if c.Resource != nil {
		s.Resource = *c.Resource
	}
	return s
}

// apply is the entries of now, each nil one the previous snapshot's.
func apply[T any](before []T, now []*T) []T {
	out := make([]T, len(now))
	for k, p := range now {
		switch {
		case p != nil:
			out[k] = *p
		case k < len(before):
			out[k] = before[k]
		}
	}
	return out
}
