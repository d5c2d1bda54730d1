package engine

import (
	"fmt"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// A client may take a lock of its own (Program.Key): lock:order:8801 beside
// lock:orders, say, to show what a lock's granularity costs. Each key is a
// lock apart — mutex and liveness are judged per key — and guards a row of
// data of its own, so that clients of different keys neither wait for nor
// overwrite each other.

// clientKey is the key client program p takes: its own, or the setup's. A
// key of its own is guarded on every server before the client connects.
func (w *World) clientKey(p model.Program) string {
	if p.Key == "" {
		return w.Setup.Key
	}
	key := p.Key
	if w.Impl.KeyOf != nil {
		key = w.Impl.KeyOf(key)
	}
	if key == w.Setup.Key {
		return w.Setup.Key
	}
	if w.Wall.Real != nil {
		w.Fail(model.ErrOwnKeyEmbedded)
		return w.Setup.Key
	}
	for _, srv := range w.Fleet.Servers {
		if err := srv.B.Guard(key); err != nil {
			w.Fail(fmt.Errorf("guard %s: %w", srv.Name, err))
		}
	}
	if key != p.Key {
		// The row is named after the lesson's key, not the library's.
		w.newRow(key, p.Key)
	}
	return key
}

// rowOf is the data client c's lock guards: the setup key's row, or for a
// key of its own a row of its own, starting at the same value.
func (w *World) rowOf(c *model.Client) *model.Resource {
	if c.Key == w.Setup.Key {
		return &w.Res
	}
	if r, ok := w.rows[c.Key]; ok {
		return r
	}
	return w.newRow(c.Key, c.Key)
}

// newRow is the row of data the lock key key guards, named after the
// lesson's key of it.
func (w *World) newRow(key, lessonKey string) *model.Resource {
	if w.rows == nil {
		w.rows = map[string]*model.Resource{}
	}
	r := &model.Resource{Name: model.RowName(lessonKey), Value: w.Setup.Stock, Guard: w.Setup.Guard}
	w.rows[key] = r
	return r
}
