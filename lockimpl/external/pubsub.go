package external

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/alicebob/miniredis/v2/proto"
	"github.com/redis/go-redis/v9"
)

// This file delivers Pub/Sub messages to the lock's subscribed
// connections. The door confirms a SUBSCRIBE at once (a handshake's
// command, no move); the run then subscribes for the connection on the
// node's server, through the client's go-redis client for that node
// (a PubSub: its own connection, not a move at the gate). A message the
// server publishes, from a PUBLISH or from inside a script (a release that
// announces itself), comes back on it as the publishing command runs: the
// publish is the move, and the delivery is part of it. The message waits
// for the client to wait for no reply (answer): a client in a call gets it
// once its replies have come, a client between calls as its next call
// waits so; whatever the goroutines' timing, one order.
//
// Not modelled: a delivery a fault delays or drops on its own (it comes
// with the publishing move), and a subscription after a failover (the
// subscription stays with the server that had the node when it was made).

// subOp is a connection's SUBSCRIBE (sub) or UNSUBSCRIBE of channel.
type subOp struct {
	c       *conn
	channel string
	sub     bool
}

// push is a message for the agent's connection c, as RESP.
type push struct {
	c   *conn
	raw string
}

// inbox holds the messages the server published that the agent has not
// been given yet; pushed has a token while it has any.
type inbox struct {
	mu     sync.Mutex
	pushes []push
	pushed chan struct{}
	// subs are the run's subscriptions, by the agent's connection.
	subs map[*conn]*redis.PubSub
}

// noteSubscription notes a SUBSCRIBE or UNSUBSCRIBE the door confirmed, for
// the run to make (subscribe).
func (d *door) noteSubscription(c *conn, args []string, reply string) {
	name := strings.ToUpper(args[0])
	if (name != "SUBSCRIBE" && name != "UNSUBSCRIBE") || strings.HasPrefix(reply, "-") {
		return
	}
	d.mu.Lock()
	d.subOps = append(d.subOps, subOp{c: c, channel: args[1], sub: name == "SUBSCRIBE"})
	d.mu.Unlock()
}

// subscribe makes the subscriptions the connections asked for since the
// last time, and ends the ones they ended: on the run's goroutine, before
// the run answers the agent's report, so that no move of the run comes
// between a client's SUBSCRIBE and the server's subscription.
func (l *Lock) subscribe(ctx context.Context) {
	l.d.mu.Lock()
	ops := l.d.subOps
	l.d.subOps = nil
	l.d.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for _, op := range ops {
		ps := l.in.subs[op.c]
		switch {
		case op.sub && ps == nil:
			ps = l.env.Nodes[op.c.node].Subscribe(ctx, op.channel)
			l.in.subs[op.c] = ps
			go l.forward(ctx, op.c, ps)
		case op.sub:
			_ = ps.Subscribe(ctx, op.channel)
		case ps != nil:
			_ = ps.Unsubscribe(ctx, op.channel)
		}
	}
}

// forward hands the messages ps receives to the inbox, for connection c,
// until ps is closed (the run's clients close as the run ends) or fails
// (its server went away). It never blocks on the agent: the server must
// not wait for a subscriber, and Redis does not.
func (l *Lock) forward(ctx context.Context, c *conn, ps *redis.PubSub) {
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			if !errors.Is(err, redis.ErrClosed) {
				_ = ps.Close()
			}
			return
		}
		l.in.mu.Lock()
		l.in.pushes = append(l.in.pushes, push{c: c, raw: message(c, msg)})
		l.in.mu.Unlock()
		select {
		case l.in.pushed <- struct{}{}:
		default:
		}
	}
}

// message is msg as the server sends it on c: a RESP2 array, or a RESP3
// push.
func message(c *conn, msg *redis.Message) string {
	parts := []string{proto.String("message"), proto.String(msg.Channel), proto.String(msg.Payload)}
	if msg.Pattern != "" {
		parts = []string{proto.String("pmessage"), proto.String(msg.Pattern), proto.String(msg.Channel), proto.String(msg.Payload)}
	}
	c.mu.Lock()
	resp3 := c.resp3
	c.mu.Unlock()
	if resp3 {
		return proto.Push(parts...)
	}
	return proto.Array(parts...)
}

// deliver gives the agent the messages waiting for it, and says whether it
// got any (not on a connection closed meanwhile).
func (l *Lock) deliverPushes() bool {
	l.in.mu.Lock()
	pushes := l.in.pushes
	l.in.pushes = nil
	l.in.mu.Unlock()
	given := false
	for _, p := range pushes {
		if p.c.push(p.raw) {
			given = true
		}
	}
	return given
}

// subscribed says whether any of the lock's connections has a
// subscription: a client may wait for a message alone.
func (l *Lock) subscribed() bool {
	return len(l.in.subs) > 0
}

// push writes a message on c now: the replies still to come on it come
// after it, as on Redis, where a command's reply is written when it runs.
func (c *conn) push(raw string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if _, err := c.w.WriteString(raw); err != nil {
		return false
	}
	return c.w.Flush() == nil
}
