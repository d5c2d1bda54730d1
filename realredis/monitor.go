package realredis

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// Monitor is MONITOR on one server, read by lockstep on a connection of
// its own, named realserver.ObserverName as every connection lockstep
// makes for itself is: another lockstep monitor, or a run's, leaves its
// lines out too.
//
// go-redis has a Monitor command, but it does not suit: its reader spins
// on a closed connection without reporting it, and the server closing
// the connection is what lockstep monitor must say. So go-redis makes the
// connection (TLS, credentials, the handshake), and lockstep reads
// MONITOR's replies on it itself.
type Monitor struct {
	opts      *redis.Options
	client    *redis.Client
	conn      net.Conn
	r         *bufio.Reader
	observers []string
}

// maxMonitorLine bounds a line of MONITOR that lockstep keeps: a value of
// many megabytes SET while it watches is one line four times its size
// (every byte quoted); past the bound the line is cut and says how much
// was left out.
const maxMonitorLine = 64 << 10

// OpenMonitor connects to the server addr names (any form Parse reads:
// host:port, redis://, rediss://, unix://, with user and password) and
// starts MONITOR there. The error names the address: a server that does
// not answer, a password it refuses, a user who may not run MONITOR or
// CLIENT LIST.
func OpenMonitor(ctx context.Context, addr string) (*Monitor, error) {
	opts, err := Parse(addr)
	if err != nil {
		return nil, err
	}
	m := &Monitor{opts: opts}
	if err := m.connect(ctx); err != nil {
		m.Close()
		return nil, err
	}
	if err := m.start(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// connect has go-redis open the connection and run its handshake (HELLO
// with the credentials, CLIENT SETNAME), keeping the connection it dialled.
func (m *Monitor) connect(ctx context.Context) error {
	o := checkOptions(m.opts)
	// RESP2: CLIENT LIST's reply is a bulk string, which start reads,
	// and the server sends nothing unasked (no RESP3 pushes) before it.
	o.Protocol = 2
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	var mu sync.Mutex
	dial := redis.NewDialer(o)
	o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			mu.Lock()
			m.conn = c
			mu.Unlock()
		}
		return c, err
	}
	m.client = redis.NewClient(o)
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if err := m.client.Ping(ctx).Err(); err != nil {
		return setupError(err, m.opts)
	}
	mu.Lock()
	defer mu.Unlock()
	if m.conn == nil {
		return fmt.Errorf("connect %s: no connection", m.opts.Addr)
	}
	return nil
}

// start sends CLIENT LIST and MONITOR in one write, which the server runs
// one right after the other: the connections lockstep's own at that moment
// are those CLIENT LIST names, and MONITOR shows what each does from then
// on, without a gap in which a connection could name itself unseen.
func (m *Monitor) start(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { m.conn.Close() })
	defer stop()
	err := m.exchange()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	// MONITOR may be quiet for as long as no one sends a command.
	return m.conn.SetDeadline(time.Time{})
}

// exchange sends CLIENT LIST and MONITOR and reads their replies, within
// checkTimeout.
func (m *Monitor) exchange() error {
	if err := m.conn.SetDeadline(time.Now().Add(checkTimeout)); err != nil {
		return m.lost(err)
	}
	if _, err := io.WriteString(m.conn, "*2\r\n$6\r\nCLIENT\r\n$4\r\nLIST\r\n*1\r\n$7\r\nMONITOR\r\n"); err != nil {
		return m.lost(err)
	}
	m.r = bufio.NewReader(m.conn)
	list, err := readBulk(m.r)
	if err != nil {
		return m.failed("CLIENT LIST", err)
	}
	m.observers = observers(list)
	reply, err := readLine(m.r, maxMonitorLine)
	if err == nil && reply != "+OK" {
		err = replyError(reply)
	}
	if err != nil {
		return m.failed("MONITOR", err)
	}
	return nil
}

// Observers are the addresses of lockstep's own connections that were open
// when MONITOR began, for NewMonitorFilter.
func (m *Monitor) Observers() []string { return m.observers }

// Addr is the server's address, as errors name it.
func (m *Monitor) Addr() string { return m.opts.Addr }

// Run hands each line of MONITOR to each as it comes, without RESP's "+",
// until ctx ends (ctx's error) or the server closes the connection, or
// each fails (their error).
func (m *Monitor) Run(ctx context.Context, each func(line string) error) error {
	stop := context.AfterFunc(ctx, func() { m.conn.Close() })
	defer stop()
	for {
		line, err := readLine(m.r, maxMonitorLine)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return m.lost(err)
		}
		text, ok := strings.CutPrefix(line, "+")
		if !ok {
			return m.failed("MONITOR", replyError(line))
		}
		if err := each(text); err != nil {
			return err
		}
	}
}

// Close closes the connection.
func (m *Monitor) Close() error {
	if m.conn != nil {
		m.conn.Close()
	}
	if m.client != nil {
		return m.client.Close()
	}
	return nil
}

// lost is the error for a connection that ended: the server closed it
// (it stopped, CLIENT KILL, a proxy between) or the network failed.
func (m *Monitor) lost(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s closed the connection: MONITOR ended", m.opts.Addr)
	}
	return fmt.Errorf("MONITOR on %s: %w", m.opts.Addr, err)
}

// failed is the error for a command the server refused, or a connection
// lost while it ran.
func (m *Monitor) failed(cmd string, err error) error {
	var re redisError
	if !errors.As(err, &re) {
		return m.lost(err)
	}
	if strings.HasPrefix(string(re), "NOPERM") {
		return fmt.Errorf("the user given for %s may not run %s, which lockstep monitor needs: %v", m.opts.Addr, cmd, re)
	}
	return fmt.Errorf("%s on %s: %v", cmd, m.opts.Addr, re)
}

// redisError is an error reply of the server's, without its "-".
type redisError string

func (e redisError) Error() string { return string(e) }

// replyError is the error for a reply that was not the one expected: an
// error reply, or something that is not RESP's.
func replyError(reply string) error {
	if e, ok := strings.CutPrefix(reply, "-"); ok {
		return redisError(e)
	}
	return redisError(fmt.Sprintf("not a reply of Redis: %.80q", reply))
}

// readBulk reads one RESP2 bulk string reply ($N, N bytes, CRLF), or an
// error reply.
func readBulk(r *bufio.Reader) (string, error) {
	head, err := readLine(r, maxMonitorLine)
	if err != nil {
		return "", err
	}
	size, ok := strings.CutPrefix(head, "$")
	if !ok {
		return "", replyError(head)
	}
	n, err := strconv.Atoi(size)
	if err != nil || n < 0 || n > 64<<20 {
		return "", replyError(head)
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b[:n]), nil
}

// readLine reads one line of RESP without its CRLF, at most max bytes of
// it: the rest of a longer line is read and left out, and the line ends
// saying how much.
func readLine(r *bufio.Reader, max int) (string, error) {
	var line []byte
	cut := 0
	for {
		chunk, err := r.ReadSlice('\n')
		keep := min(len(chunk), max-len(line))
		line, cut = append(line, chunk[:keep]...), cut+len(chunk)-keep
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	// The CRLF is in what was kept or in what was left out, or split.
	switch {
	case cut == 0:
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	case cut == 1:
		line, cut = bytes.TrimSuffix(line, []byte("\r")), 0
	default:
		cut -= 2
	}
	switch {
	case cut == 1:
		return fmt.Sprintf("%s … (1 more byte left out)", line), nil
	case cut > 1:
		return fmt.Sprintf("%s … (%d more bytes left out)", line, cut), nil
	}
	return string(line), nil
}

// observers are the addresses CLIENT LIST's reply names for connections
// named realserver.ObserverName. A client's name has no spaces (Redis
// refuses one), so a line's fields are space-separated.
func observers(list string) []string {
	var out []string
	for line := range strings.Lines(list) {
		var addr string
		own := false
		for f := range strings.FieldsSeq(line) {
			switch k, v, _ := strings.Cut(f, "="); k {
			case "addr":
				addr = v
			case "name":
				own = v == realserver.ObserverName
			}
		}
		if own && addr != "" {
			out = append(out, addr)
		}
	}
	return out
}
