package engine

import (
	"context"
	"net"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// This file is a lock client's connection to the server its node routes to,
// and to an embedded one (package backend's Embedded) through the engine's
// own pipe.

// dial connects client c's go-redis client of node i to the server the
// node routes to now, and notes which one in c.conn; a connection to an
// embedded server is a memConn.
func (w *World) dial(ctx context.Context, c *model.Client, i int) (net.Conn, error) {
	srv := w.Fleet.Servers[w.Fleet.Route[i]]
	c.Conn[i].Store(int32(w.Fleet.Route[i]))
	conn, err := srv.B.Dial(ctx)
	if mem, ok := srv.B.(*backend.Embedded); ok && err == nil {
		return backend.EmbeddedConn(conn, mem, srv.Name), nil
	}
	return conn, err
}
