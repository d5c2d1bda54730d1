package external

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2/proto"
	"github.com/redis/go-redis/v9"
)

// This file drives the agent through one order, on the goroutine of the
// call that gave it (TryAcquire, Release): it waits for the agent's
// reports, sends the commands the agent's lock sent as the client's own,
// one move each, hands their replies back, and moves the agent's clock
// when the agent sleeps, until the agent says the order is done.
//
// The agent is busy from an order, a reply or a tick until its next report:
// the wait for that report is on a channel made outside the bubble, so the
// run is not quiet meanwhile. Between reports the agent waits for what
// only the run gives it, and the run's goroutines wait on the run's own
// channels and clock, as Go lock code does.

// reply is a command's reply, for the connection that sent it.
type reply struct {
	c   *conn
	s   *slot
	raw string // as RESP; "" closes the connection: no server answered
}

// drive sends o and runs the agent until it reports o done.
func (l *Lock) drive(ctx context.Context, o order) (report, error) {
	if err := l.d.open(l.env.Clock.Now().UnixMilli(), true); err != nil {
		return report{}, l.gone(err)
	}
	if err := l.a.send(o); err != nil {
		return report{}, l.gone(fmt.Errorf("the agent's control channel: %w", err))
	}
	var last report
	for {
		r := <-l.a.reports
		if r.gone {
			return r, l.gone(r.err)
		}
		last = r
		l.subscribe(ctx)
		if r.Sent > 0 {
			l.issue(ctx, r.Sent)
			l.owed += r.Sent
		}
		switch r.State {
		case "done":
			// Replies still owed go to the agent as its next order runs.
			return r, nil
		case "sleep", "wait":
		default:
			return r, l.gone(fmt.Errorf("the agent reported state %q", r.State))
		}
		if err := l.answer(ctx, last); err != nil {
			return last, err
		}
	}
}

// answer gives the agent, which waits, what it waits for: the next reply
// to come, a message on a connection it subscribed with, or, if it sleeps,
// the run's time reaching until_ms, whichever comes first. A reply for a connection already closed is nothing to the
// agent, which then waits on.
func (l *Lock) answer(ctx context.Context, last report) error {
	var woke <-chan error
	stop := func() {}
	if last.State == "sleep" {
		woke, stop = l.sleepUntil(ctx, last.UntilMS)
	}
	defer func() { stop() }()
	for {
		if l.owed == 0 && woke == nil && !l.subscribed() {
			return l.gone(errors.New("the agent waits for a reply to a command it never sent"))
		}
		// Messages reach the agent when it waits for no reply: one order,
		// whatever the goroutines' timing. (Messages and replies come on
		// different connections, whose order nothing on a real server
		// fixes either.) Given while a reply was owed, a message at times
		// left node-redis's next command unwritten when the agent reported
		// (read-write × node-simple-redis-mutex, one run in two).
		pushed := l.in.pushed
		if l.owed > 0 {
			pushed = nil
		}
		select {
		case rep := <-l.replies:
			l.owed--
			if rep.c.deliver(rep.s, rep.raw, l.env.Clock.Now().UnixMilli()) {
				return nil
			}
		case <-pushed:
			if l.deliverPushes() {
				return nil
			}
		case err := <-woke:
			if err != nil {
				return err
			}
			now := l.env.Clock.Now().UnixMilli()
			if err := l.d.open(now, false); err != nil {
				return l.gone(err)
			}
			if err := l.a.send(order{Op: "tick", NowMS: now}); err != nil {
				return l.gone(fmt.Errorf("the agent's control channel: %w", err))
			}
			woke, stop = nil, func() {}
			return nil
		}
	}
}

// sleepUntil waits, on a goroutine of the run's, until the run's time has
// come to until (ms of the run's time): woke says when, or why not. stop
// ends the wait early, and returns once the goroutine has.
func (l *Lock) sleepUntil(ctx context.Context, until int64) (woke <-chan error, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan error, 1)
	go func() {
		var err error
		if d := time.UnixMilli(until).Sub(l.env.Clock.Now()); d > 0 {
			err = l.env.Clock.Sleep(ctx, d)
		}
		ch <- err
	}()
	return ch, func() {
		cancel()
		<-ch
	}
}

// deliver gives the agent's connection a reply, or, for raw "", closes it
// as a lost server's closes. It says whether the agent sees anything: not
// on a connection closed already.
func (c *conn) deliver(s *slot, raw string, now int64) bool {
	c.mu.Lock()
	closed := c.closed
	c.closed = c.closed || raw == ""
	c.mu.Unlock()
	if closed {
		return false
	}
	if raw == "" {
		c.d.setLost(c.node, now)
		c.nc.Close()
		return true
	}
	if err := c.fill(s, raw); err != nil {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.nc.Close()
		return false
	}
	return true
}

// issue takes the n commands the agent said it sent from the door, and
// sends them on, each connection's in its order, from goroutines of their
// own: each is a move of the run (a flight of the client's), and its reply
// comes back on l.replies. A connection's commands reach its node one
// after the other, after those it sent before, as on a Redis connection.
func (l *Lock) issue(ctx context.Context, n int) {
	byConn := map[*conn][]inbound{}
	var conns []*conn
	for range n {
		in := <-l.d.cmds
		if byConn[in.c] == nil {
			conns = append(conns, in.c)
		}
		byConn[in.c] = append(byConn[in.c], in)
	}
	slices.SortFunc(conns, func(a, b *conn) int {
		if a.node != b.node {
			return a.node - b.node
		}
		return a.seq - b.seq
	})
	for _, c := range conns {
		before, done := c.sending, make(chan struct{})
		c.sending = done
		go func() {
			defer close(done)
			if before != nil {
				<-before
			}
			l.send(ctx, byConn[c])
		}()
	}
}

// send sends one connection's commands to its node, one after the other.
func (l *Lock) send(ctx context.Context, cmds []inbound) {
	for _, in := range cmds {
		argv := make([]any, len(in.args))
		for i, a := range in.args {
			argv[i] = a
		}
		res, err := l.env.Nodes[in.c.node].Do(ctx, argv...).Result()
		l.replies <- reply{c: in.c, s: in.s, raw: encode(res, err, in.resp3)}
	}
}

// encode is a go-redis reply as RESP2, or as RESP3 if resp3. A string that
// reads as a status reply (OK, QUEUED, PONG) goes as one: go-redis does not
// say which of the two a string was, and a client takes either for the
// other. An error that is not the server's (the node is down, cut off by a
// partition) is "": the connection closes, as a lost server's does.
//
// The run's own clients speak RESP2 to its servers, so a reply's types are
// RESP2's; in RESP3 they go in RESP3's framing (a null is "_"). A Lua
// script's false is a null in both, as Redis sends it unless the script
// chose RESP3 for itself (redis.setresp(3)).
func encode(res any, err error, resp3 bool) string {
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return null(resp3)
		}
		var re redis.Error
		if errors.As(err, &re) {
			return proto.Error(re.Error())
		}
		return ""
	}
	return encodeValue(res, resp3)
}

func null(resp3 bool) string {
	if resp3 {
		return proto.NilResp3
	}
	return proto.Nil
}

func encodeValue(v any, resp3 bool) string {
	switch v := v.(type) {
	case nil:
		return null(resp3)
	case string:
		switch v {
		case "OK", "QUEUED", "PONG":
			return proto.Inline(v)
		}
		return proto.String(v)
	case int64:
		return proto.Int(int(v))
	case bool:
		return encodeBool(v, resp3)
	case float64:
		if resp3 {
			return proto.Float(v)
		}
		return proto.String(strings.TrimSuffix(fmt.Sprintf("%.17g", v), ".0"))
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = encodeValue(e, resp3)
		}
		return proto.Array(parts...)
	case map[any]any:
		return encodeMap(v, resp3)
	case error:
		return proto.Error(v.Error())
	}
	return proto.String(fmt.Sprint(v))
}

func encodeBool(v, resp3 bool) string {
	switch {
	case resp3 && v:
		return "#t\r\n"
	case resp3:
		return "#f\r\n"
	case v:
		return proto.Int(1)
	}
	return proto.Int(0)
}

// encodeMap is a map, its keys in order: a RESP3 map, or RESP2's flat
// array of keys and values.
func encodeMap(v map[any]any, resp3 bool) string {
	keys := make([]string, 0, len(v))
	vals := map[string]any{}
	for k, e := range v {
		ks := fmt.Sprint(k)
		keys = append(keys, ks)
		vals[ks] = e
	}
	slices.Sort(keys)
	parts := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		parts = append(parts, proto.String(k), encodeValue(vals[k], resp3))
	}
	if resp3 {
		return proto.Map(parts...)
	}
	return proto.Array(parts...)
}
