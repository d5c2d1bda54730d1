package sim

import (
	"context"
	"net"
	"time"
)

// memConn is a lock client's connection to an embedded server. When a
// Redis server dies, its host closes its TCP connections, and go-redis's
// pool checks a connection before it hands it to a command (connCheck, a
// peek at the socket that reads EOF): a dead connection is dropped and a
// new one dialed, to the address the client has — with a Sentinel-aware
// client, the primary Sentinel names. The command never sees the dead
// connection. An in-process pipe has no socket to peek at, so memConn does
// the same at the command's first write: a connection whose server was
// killed is replaced by a new one to the server the node routes to now.
// (While no replica is promoted the node still routes to the dead server,
// and the gate refuses the command before it is written: a refused dial.)
type memConn struct {
	net.Conn
	b    *memBackend
	dial func() (net.Conn, *memBackend, error)
}

// fresh replaces a connection whose server was killed before a command is
// written on it: go-redis sets the write deadline first, then writes.
func (m *memConn) fresh() error {
	if !m.b.killed {
		return nil
	}
	m.Conn.Close()
	c, b, err := m.dial()
	if err != nil {
		return err
	}
	m.Conn, m.b = c, b
	return nil
}

func (m *memConn) SetWriteDeadline(t time.Time) error {
	if err := m.fresh(); err != nil {
		return err
	}
	return m.Conn.SetWriteDeadline(t)
}

func (m *memConn) SetDeadline(t time.Time) error {
	if err := m.fresh(); err != nil {
		return err
	}
	return m.Conn.SetDeadline(t)
}

func (m *memConn) Write(p []byte) (int, error) {
	if err := m.fresh(); err != nil {
		return 0, err
	}
	return m.Conn.Write(p)
}

// dial connects client c's go-redis client of node i to the server the
// node routes to now; a connection to an embedded server is a memConn.
func (w *World) dial(ctx context.Context, c *client, i int) (net.Conn, error) {
	conn, b, err := w.dialNode(ctx, c, i)
	mem, embedded := b.(*memBackend)
	if err != nil || !embedded {
		return conn, err
	}
	return &memConn{Conn: conn, b: mem, dial: func() (net.Conn, *memBackend, error) {
		conn, b, err := w.dialNode(ctx, c, i)
		mem, _ := b.(*memBackend) // an embedded world's servers are all embedded
		return conn, mem, err
	}}, nil
}

// dialNode dials the server node i routes to now, and notes it in c.conn.
func (w *World) dialNode(ctx context.Context, c *client, i int) (net.Conn, Backend, error) {
	srv := w.route[i]
	c.conn[i].Store(int32(srv))
	b := w.servers[srv].b
	conn, err := b.Dial(ctx)
	return conn, b, err
}
