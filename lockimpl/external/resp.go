package external

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alicebob/miniredis/v2/proto"
)

// This file is lockstep's Redis front door for one client's lock: a port on
// the loopback for each of the run's nodes, where the agent's lock connects
// as to a Redis server. A connection's handshake (PING, SELECT 0, CLIENT
// SETNAME, …) is answered here at once and is no move of the run; every
// other command is the lock's, and goes to the run, which sends it on as
// a command of the client's, through the scheduler (drive.go).

// door is the ports of one client's lock.
type door struct {
	listeners []net.Listener
	// cmds are the lock's commands as they come, made outside the bubble.
	cmds chan inbound
	mu   sync.Mutex
	// conns are the connections accepted so far, in order; closed is set
	// when the door closes.
	conns  []*conn
	closed bool
	// lost are the nodes a command found unreachable (down, cut off): a
	// lost node's port is closed, and a new connection to it is refused, as
	// one to a lost server fails (a client that reconnects by itself, as
	// ioredis does, backs off as it would). reopen is when, in ms of the
	// run's time, the port opens again, at the same address: as the lock's
	// next call starts, or within a call after a wait that doubles each
	// time the node is found lost again (1 s, 2 s, 4 s …, waits), so that a
	// lock that retries within one call (redis-lock polls until it holds)
	// finds a server that came back, or the primary a failover made,
	// without a reconnect every second through a long outage.
	lost   []bool
	reopen []int64
	waits  []int64
	// addrs are the ports, node by node, as host:port.
	addrs []string
	// subOps are the subscriptions the connections asked for, and ended,
	// since the run last took them (pubsub.go).
	subOps []subOp
}

// conn is one connection to node's port.
type conn struct {
	nc   net.Conn
	node int
	seq  int // its place among the door's connections
	mu   sync.Mutex
	w    *bufio.Writer
	// slots are the replies to come, in the order of their commands.
	slots []*slot
	// sending is closed when the last commands the run took from it have
	// their replies (drive.go's issue); the run's own.
	sending chan struct{}
	// closed is set once lockstep closed it (a lost server) or could not
	// write to it: the agent sees no more on it.
	closed bool
	// resp3 is set once the client asked for RESP3 (HELLO 3): its replies
	// go back in RESP3's types from then on.
	resp3 bool
	d     *door
}

// inbound is a command of the lock's, as a connection read it, and the
// place of its reply.
type inbound struct {
	c    *conn
	args []string
	s    *slot
	// resp3 says the connection spoke RESP3 when it sent the command.
	resp3 bool
}

// slot is the place of one command's reply on its connection: a client
// matches replies to its commands by their order, so a handshake's reply,
// which the door has at once, waits behind the replies to the moves sent
// before it, which the run gives.
type slot struct {
	raw    string
	filled bool
}

// doors counts the doors opened, for the address each listens on.
var doors atomic.Uint32

// doorHost is a loopback address of the door's own: 127.a.b.c, one per
// door, so that a port a door closes while its node is lost (setLost) is
// not taken by another run's door meanwhile, whose lock the first run's
// client, reconnecting, would then reach. Where the system has only
// 127.0.0.1 on its loopback (macOS), the door takes that.
func doorHost() string {
	n := doors.Add(1) % (254 << 16)
	host := fmt.Sprintf("127.%d.%d.%d", 1+n>>16, (n>>8)&0xff, n&0xff)
	if l, err := net.Listen("tcp", host+":0"); err == nil {
		l.Close()
		return host
	}
	return "127.0.0.1"
}

// openDoor listens on a port of a loopback address of its own for each of
// nodes nodes.
func openDoor(nodes int) (*door, error) {
	d := &door{lost: make([]bool, nodes), reopen: make([]int64, nodes), waits: make([]int64, nodes)}
	var err error
	inOutside(func() {
		d.cmds = make(chan inbound, 64)
		host := doorHost()
		for range nodes {
			var l net.Listener
			if l, err = net.Listen("tcp", host+":0"); err != nil {
				return
			}
			d.listeners = append(d.listeners, l)
		}
		for i, l := range d.listeners {
			d.addrs = append(d.addrs, l.Addr().String())
			go d.accept(l, i)
		}
	})
	if err != nil {
		d.close()
		return nil, fmt.Errorf("lockstep's Redis port: %w", err)
	}
	return d, nil
}

// ports are the ports, node by node, as host:port.
func (d *door) ports() []string {
	return slices.Clone(d.addrs)
}

func (d *door) accept(l net.Listener, node int) {
	for {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			nc.Close()
			return
		}
		c := &conn{nc: nc, node: node, seq: len(d.conns), w: bufio.NewWriter(nc), d: d}
		d.conns = append(d.conns, c)
		d.mu.Unlock()
		go d.read(c)
	}
}

// read reads c's commands: it answers a handshake's, and hands the rest to
// the run. A connection that sends what is not RESP is closed.
func (d *door) read(c *conn) {
	rd := bufio.NewReader(c.nc)
	for {
		raw, err := proto.Read(rd)
		if err != nil {
			c.nc.Close()
			return
		}
		s := &slot{}
		c.mu.Lock()
		c.slots = append(c.slots, s)
		c.mu.Unlock()
		args, err := proto.ReadStrings(raw)
		if err != nil || len(args) == 0 {
			c.fill(s, proto.Error("ERR lockstep: a command is an array of bulk strings"))
			continue
		}
		c.mu.Lock()
		reply, resp3, ok := handshake(args, c.resp3)
		c.resp3 = resp3 // as it speaks from this command on
		c.mu.Unlock()
		if ok {
			d.noteSubscription(c, args, reply)
			c.fill(s, reply)
			continue
		}
		d.cmds <- inbound{c: c, args: args, s: s, resp3: resp3}
	}
}

// retryLost is how long a node first found lost in a call stays closed.
const retryLost = 1000 // ms of the run's time

// setLost marks node lost at now (ms of the run's time) and closes its
// port, for twice as long as the last time in this call.
func (d *door) setLost(node int, now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.lost[node] {
		return
	}
	d.waits[node] = max(retryLost, 2*d.waits[node])
	d.lost[node], d.reopen[node] = true, now+d.waits[node]
	d.listeners[node].Close()
}

// open opens the port of every node lost whose wait ends by now again;
// with a new call (fresh), every lost node's, and the waits start over.
func (d *door) open(now int64, fresh bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	if fresh {
		clear(d.waits)
	}
	var err error
	for i, lost := range d.lost {
		if !lost || (!fresh && d.reopen[i] > now) {
			continue
		}
		inOutside(func() {
			var l net.Listener
			if l, err = net.Listen("tcp", d.addrs[i]); err != nil {
				return
			}
			d.listeners[i], d.lost[i] = l, false
			go d.accept(l, i)
		})
		if err != nil {
			return fmt.Errorf("lockstep's Redis port for node %d again: %w", i+1, err)
		}
	}
	return nil
}

// fill gives s its reply, and sends the replies now ready, in order.
func (c *conn) fill(s *slot, reply string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.raw, s.filled = reply, true
	for len(c.slots) > 0 && c.slots[0].filled {
		if _, err := c.w.WriteString(c.slots[0].raw); err != nil {
			return err
		}
		c.slots = c.slots[1:]
	}
	return c.w.Flush()
}

// close stops listening and closes every connection: the lock's next
// command finds no server.
func (d *door) close() {
	d.mu.Lock()
	d.closed = true
	conns := d.conns
	d.mu.Unlock()
	for _, l := range d.listeners {
		l.Close()
	}
	for _, c := range conns {
		c.nc.Close()
	}
}

// Handshake are the commands a client sends of itself on a connection
// (its protocol, its name, its database, a health check), which the door
// answers: the agents leave them out of the commands they count
// (clients/python/lockstep_agent.py's HANDSHAKE).
//
// SUBSCRIBE and UNSUBSCRIBE are among them: the door confirms a
// subscription to one channel, or its end, at once, and the run subscribes
// on the node's server for the connection (pubsub.go).
var Handshake = []string{"HELLO", "CLIENT", "SELECT", "AUTH", "PING", "INFO", "COMMAND", "READONLY", "SUBSCRIBE", "UNSUBSCRIBE"}

// handshake is the door's reply to a handshake's command on a connection
// that speaks RESP3 if resp3, whether the connection speaks RESP3 after it,
// and whether args is a handshake's command at all.
func handshake(args []string, resp3 bool) (reply string, resp3After bool, ok bool) {
	name := strings.ToUpper(args[0])
	switch name {
	case "PING":
		if len(args) > 1 {
			return proto.String(args[1]), resp3, true
		}
		return proto.Inline("PONG"), resp3, true
	case "SELECT":
		if len(args) == 2 && args[1] == "0" {
			return proto.Inline("OK"), resp3, true
		}
		return proto.Error("ERR lockstep's servers have database 0 only"), resp3, true
	case "HELLO":
		return hello(args, resp3)
	case "CLIENT", "AUTH", "READONLY":
		return proto.Inline("OK"), resp3, true
	case "INFO":
		return proto.String("# Server\r\nredis_version:7.2.0\r\nredis_mode:standalone\r\n"), resp3, true
	case "COMMAND":
		return proto.Array(), resp3, true
	case "SUBSCRIBE", "UNSUBSCRIBE":
		if len(args) != 2 {
			return proto.Error("ERR lockstep's ports (un)subscribe one channel per command"), resp3, true
		}
		n := 1
		if name == "UNSUBSCRIBE" {
			n = 0
		}
		confirm := []string{proto.String(strings.ToLower(name)), proto.String(args[1]), proto.Int(n)}
		if resp3 {
			return proto.Push(confirm...), resp3, true
		}
		return proto.Array(confirm...), resp3, true
	}
	return "", resp3, false
}

// hello answers HELLO [protover [AUTH user pass] [SETNAME name]]: protocol
// 2 or 3, as Redis 7 does; the reply is in the protocol asked for.
func hello(args []string, resp3 bool) (string, bool, bool) {
	if len(args) > 1 {
		switch args[1] {
		case "2":
			resp3 = false
		case "3":
			resp3 = true
		default:
			return proto.Error("NOPROTO unsupported protocol version"), resp3, true
		}
	}
	fields := []string{
		proto.String("server"), proto.String("redis"),
		proto.String("version"), proto.String("7.2.0"),
		proto.String("proto"), proto.Int(2),
		proto.String("mode"), proto.String("standalone"),
		proto.String("role"), proto.String("master"),
	}
	if resp3 {
		fields[5] = proto.Int(3)
		return proto.Map(fields...), resp3, true
	}
	return proto.Array(fields...), resp3, true
}
