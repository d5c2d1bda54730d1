package backend

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	mrserver "github.com/alicebob/miniredis/v2/server"

	"github.com/lockstep-sim/lockstep/internal/prestack"
)

// An embedded server serves the worlds of a process one after another
// (memServers), and each world is a bubble of its own (package sim's
// bubbled.go). Nothing of a bubble may be used in another: miniredis's
// Dial counts its
// connections in a sync.WaitGroup, which belongs to the bubble that first
// added to it. So only a new server's first world connects through
// miniredis's Dial; the worlds after it connect through serve, the same
// loop on miniredis's exported Dispatch, whose goroutine and pipe belong to
// the world that dials. (A new network server for every world would do as
// well, at the cost of registering miniredis's two hundred-odd commands
// again: a sixth of a search's time.)

// serve opens a connection to srv and serves its commands until the client
// closes it or the server is killed.
func (b *Embedded) serve(srv *mrserver.Server) net.Conn {
	client, server := net.Pipe()
	b.conns = append(b.conns, server)
	go func() {
		prestack.Grow()
		defer server.Close()
		r, w := connBuffers(server)
		peer := mrserver.NewPeer(w)
		subscribed := false
		// A subscriber's goroutines (miniredis's monitorPublish) end when
		// its last subscription does: miniredis's own server ends them as
		// the connection closes, by callbacks serve cannot reach. They
		// write to the connection's buffer: a subscriber's buffers are
		// not kept for another connection.
		defer func() {
			if subscribed {
				srv.Dispatch(peer, []string{"UNSUBSCRIBE"})
				srv.Dispatch(peer, []string{"PUNSUBSCRIBE"})
				return
			}
			putConnBuffers(r, w)
		}()
		for {
			args, err := readCommand(r)
			if err != nil {
				return
			}
			switch strings.ToUpper(args[0]) {
			case "SUBSCRIBE", "PSUBSCRIBE":
				subscribed = true
			}
			srv.Dispatch(peer, args)
			peer.Flush()
			if peer.Closed() {
				return
			}
		}
	}()
	return client
}

// bufReaders and bufWriters keep the buffers of the connections that
// ended, for the next: a search serves thousands of worlds, each with new
// connections, and their buffers (4 KiB each way, zeroed) were a sixth of
// the bytes a search allocated.
var (
	bufReaders = sync.Pool{New: func() any { return bufio.NewReader(nil) }}
	bufWriters = sync.Pool{New: func() any { return bufio.NewWriter(nil) }}
)

// connBuffers are a reader and a writer on conn.
func connBuffers(conn net.Conn) (*bufio.Reader, *bufio.Writer) {
	r, w := bufReaders.Get().(*bufio.Reader), bufWriters.Get().(*bufio.Writer)
	r.Reset(conn)
	w.Reset(conn)
	return r, w
}

// putConnBuffers gives a connection's buffers back, holding on to nothing
// of it.
func putConnBuffers(r *bufio.Reader, w *bufio.Writer) {
	r.Reset(nil)
	w.Reset(nil)
	bufReaders.Put(r)
	bufWriters.Put(w)
}

var errProtocol = errors.New("lockstep: not a RESP array of bulk strings")

// readCommand reads one command as a client sends it: a RESP array of bulk
// strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	n, err := readLen(r, '*')
	if err != nil {
		return nil, err
	}
	args := make([]string, 0, n)
	for range n {
		l, err := readLen(r, '$')
		if err != nil {
			return nil, err
		}
		buf := make([]byte, l+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args = append(args, string(buf[:l]))
	}
	if len(args) == 0 {
		return nil, errProtocol
	}
	return args, nil
}

// readLen reads a line "<prefix><n>\r\n".
func readLen(r *bufio.Reader, prefix byte) (int, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 3 || line[0] != prefix {
		return 0, errProtocol
	}
	n, err := strconv.Atoi(strings.TrimSuffix(line[1:], "\r\n"))
	if err != nil || n < 0 {
		return 0, errProtocol
	}
	return n, nil
}
