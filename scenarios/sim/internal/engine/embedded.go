package engine

import (
	"context"
	"net"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// This file is the world's side of its embedded servers (package
// backend's Embedded): a new one for the world, and a lock client's
// connection to one.

// newMem is an embedded server for this world: a cluster node when the
// setup says Cluster.
func (f *Fleet) NewMem() *backend.Embedded {
	return backend.NewEmbedded(model.Epoch, f.W.Setup.Cluster)
}

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
