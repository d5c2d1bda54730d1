package sim

import (
	"errors"
	"fmt"
	"strings"
)

// A client may take a lock of its own (Program.Key): lock:order:8801 beside
// lock:orders, say, to show what a lock's granularity costs. Each key is a
// lock apart — mutex and liveness are judged per key — and guards a row of
// data of its own, so that clients of different keys neither wait for nor
// overwrite each other.

// ErrOwnKeyEmbedded is a client's own key on real servers (Setup.ClientKeys):
// the run's ACL user is made for the setup's key alone.
var ErrOwnKeyEmbedded = errors.New("a client with a key of its own runs on embedded servers only")

// clientKey is the key client program p takes: its own, or the setup's. A
// key of its own is guarded on every server before the client connects.
func (w *world) clientKey(p Program) string {
	if p.Key == "" || p.Key == w.setup.Key {
		return w.setup.Key
	}
	if w.wall.real != nil {
		w.fail(ErrOwnKeyEmbedded)
		return w.setup.Key
	}
	for _, srv := range w.fleet.servers {
		if err := srv.b.Guard(p.Key); err != nil {
			w.fail(fmt.Errorf("guard %s: %w", srv.name, err))
		}
	}
	return p.Key
}

// rowName is the name of the data a lock's key guards: the stock of product
// 1001 for the default key, otherwise the key without its "lock:"
// (lock:orders guards orders, lock:order:8801 order:8801).
func rowName(key string) string {
	if key == defaultKey {
		return "stock:product:1001"
	}
	return strings.TrimPrefix(key, "lock:")
}

// rowOf is the data client c's lock guards: the setup key's row, or for a
// key of its own a row of its own, starting at the same value.
func (w *world) rowOf(c *client) *resource {
	if c.key == w.setup.Key {
		return &w.res
	}
	if r, ok := w.rows[c.key]; ok {
		return r
	}
	if w.rows == nil {
		w.rows = map[string]*resource{}
	}
	r := &resource{name: rowName(c.key), value: w.setup.Stock, guard: w.setup.Guard}
	w.rows[c.key] = r
	return r
}
