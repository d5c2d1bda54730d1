package sim

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
func (w *world) clientKey(p model.Program) string {
	if p.Key == "" || p.Key == w.setup.Key {
		return w.setup.Key
	}
	if w.wall.real != nil {
		w.fail(model.ErrOwnKeyEmbedded)
		return w.setup.Key
	}
	for _, srv := range w.fleet.servers {
		if err := srv.B.Guard(p.Key); err != nil {
			w.fail(fmt.Errorf("guard %s: %w", srv.Name, err))
		}
	}
	return p.Key
}

// rowOf is the data client c's lock guards: the setup key's row, or for a
// key of its own a row of its own, starting at the same value.
func (w *world) rowOf(c *model.Client) *model.Resource {
	if c.Key == w.setup.Key {
		return &w.res
	}
	if r, ok := w.rows[c.Key]; ok {
		return r
	}
	if w.rows == nil {
		w.rows = map[string]*model.Resource{}
	}
	r := &model.Resource{Name: model.RowName(c.Key), Value: w.setup.Stock, Guard: w.setup.Guard}
	w.rows[c.Key] = r
	return r
}
