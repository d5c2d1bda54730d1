package backend

import (
	"io"
	"net"
	"syscall"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// memConn is a lock client's connection to an embedded server (an
// in-process pipe), with what a TCP socket tells go-redis when its server
// dies. The server's host closes the connection, and go-redis's pool checks
// a connection each time it hands one out (connCheck: a peek at the socket,
// which reads EOF): a dead one is dropped and a new one dialed — to the
// server the node routes to then, as a Sentinel-aware client asks Sentinel
// for the primary. So a client's next command after a failover reaches the
// promoted replica (while none is promoted yet, the node still routes to
// the dead server, and the gate refuses the command: a refused dial). A
// connection go-redis does not check again before it writes — a
// transaction's, held from WATCH to EXEC — fails as a socket whose server
// died does. A pipe has no socket: memConn answers the check itself
// (SyscallConn), and go-redis's own code does the rest. (On platforms
// where go-redis checks nothing, every command on the dead connection
// fails.)
type memConn struct {
	net.Conn
	b    *Embedded
	name string // the server's
}

// EmbeddedConn is conn, a connection b's Dial made, as a lock client's
// connection to server, the name of b in the run: a memConn.
func EmbeddedConn(conn net.Conn, b *Embedded, server string) net.Conn {
	return &memConn{Conn: conn, b: b, name: server}
}

// dead is the error of a connection whose server was killed.
func (m *memConn) dead() error {
	if m.b.killed {
		return &command.NodeDownError{Server: m.name, Lost: true}
	}
	return nil
}

func (m *memConn) Write(p []byte) (int, error) {
	if err := m.dead(); err != nil {
		return 0, err
	}
	return m.Conn.Write(p)
}

func (m *memConn) Read(p []byte) (int, error) {
	if err := m.dead(); err != nil {
		return 0, err
	}
	return m.Conn.Read(p)
}

func (m *memConn) SetDeadline(t time.Time) error {
	if err := m.dead(); err != nil {
		return err
	}
	return m.Conn.SetDeadline(t)
}

func (m *memConn) SetReadDeadline(t time.Time) error {
	if err := m.dead(); err != nil {
		return err
	}
	return m.Conn.SetReadDeadline(t)
}

func (m *memConn) SetWriteDeadline(t time.Time) error {
	if err := m.dead(); err != nil {
		return err
	}
	return m.Conn.SetWriteDeadline(t)
}

// SyscallConn is what go-redis's health check reads the socket through.
func (m *memConn) SyscallConn() (syscall.RawConn, error) { return memRaw{m}, nil }

// memRaw answers go-redis's peek at the socket as a TCP socket would: EOF
// once the server has died, nothing to read otherwise. It never runs f: a
// pipe has no file descriptor.
type memRaw struct{ m *memConn }

func (r memRaw) Read(func(fd uintptr) bool) error {
	if r.m.b.killed {
		return io.EOF
	}
	return nil
}

func (r memRaw) Write(func(fd uintptr) bool) error { return r.m.dead() }
func (r memRaw) Control(func(fd uintptr)) error    { return r.m.dead() }
