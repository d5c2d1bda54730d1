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
	raw string // as RESP; "" closes the connection: no server answered
}

// drive sends o and runs the agent until it reports o done.
func (l *Lock) drive(ctx context.Context, o order) (report, error) {
	if err := l.a.send(o); err != nil {
		return report{}, l.gone(fmt.Errorf("the agent's control channel: %w", err))
	}
	busy, outstanding := true, 0
	var last report
	for {
		if busy {
			r := <-l.a.reports
			if r.gone {
				return r, l.gone(r.err)
			}
			busy, last = false, r
			if r.Sent > 0 {
				l.issue(ctx, r.Sent)
				outstanding += r.Sent
			}
			switch r.State {
			case "done":
				if outstanding > 0 {
					return r, l.gone(fmt.Errorf("the agent finished %s with %d replies still to come", o.Op, outstanding))
				}
				return r, nil
			case "sleep", "wait":
			default:
				return r, l.gone(fmt.Errorf("the agent reported state %q", r.State))
			}
		}
		if outstanding == 0 {
			if last.State != "sleep" {
				return last, l.gone(errors.New("the agent waits for a reply to a command it never sent"))
			}
			if err := l.sleepUntil(ctx, last.UntilMS); err != nil {
				return last, err
			}
			busy = true
			continue
		}
		rep := <-l.replies
		outstanding--
		if rep.raw == "" {
			rep.c.nc.Close()
		} else if err := rep.c.write(rep.raw); err != nil {
			rep.c.nc.Close()
		}
		busy = true
	}
}

// sleepUntil moves the agent's clock to until (ms of the run's time) once
// the run's time has come there, and tells the agent.
func (l *Lock) sleepUntil(ctx context.Context, until int64) error {
	if d := time.UnixMilli(until).Sub(l.env.Clock.Now()); d > 0 {
		if err := l.env.Clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
	if err := l.a.send(order{Op: "tick", NowMS: l.env.Clock.Now().UnixMilli()}); err != nil {
		return l.gone(fmt.Errorf("the agent's control channel: %w", err))
	}
	return nil
}

// issue takes the n commands the agent said it sent from the door, and
// sends them on, each connection's in its order, from goroutines of their
// own: each is a move of the run (a flight of the client's), and its reply
// comes back on l.replies.
func (l *Lock) issue(ctx context.Context, n int) {
	var got []inbound
	for range n {
		got = append(got, <-l.d.cmds)
	}
	byConn := map[*conn][][]string{}
	var conns []*conn
	for _, in := range got {
		if byConn[in.c] == nil {
			conns = append(conns, in.c)
		}
		byConn[in.c] = append(byConn[in.c], in.args)
	}
	slices.SortFunc(conns, func(a, b *conn) int {
		if a.node != b.node {
			return a.node - b.node
		}
		return a.seq - b.seq
	})
	for _, c := range conns {
		go l.send(ctx, c, byConn[c])
	}
}

// send sends c's commands to its node, one after the other.
func (l *Lock) send(ctx context.Context, c *conn, cmds [][]string) {
	for _, args := range cmds {
		argv := make([]any, len(args))
		for i, a := range args {
			argv[i] = a
		}
		res, err := l.env.Nodes[c.node].Do(ctx, argv...).Result()
		l.replies <- reply{c: c, raw: encode(res, err)}
	}
}

// encode is a go-redis reply as RESP2. A string that reads as a status
// reply (OK, QUEUED, PONG) goes as one: go-redis does not say which of the
// two a string was, and a client takes either for the other. An error that
// is not the server's (the node is down, cut off by a partition) is "":
// the connection closes, as a lost server's does.
func encode(res any, err error) string {
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return "$-1\r\n"
		}
		var re redis.Error
		if errors.As(err, &re) {
			return proto.Error(re.Error())
		}
		return ""
	}
	return encodeValue(res)
}

func encodeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "$-1\r\n"
	case string:
		switch v {
		case "OK", "QUEUED", "PONG":
			return proto.Inline(v)
		}
		return proto.String(v)
	case int64:
		return proto.Int(int(v))
	case bool:
		if v {
			return proto.Int(1)
		}
		return proto.Int(0)
	case float64:
		return proto.String(strings.TrimSuffix(fmt.Sprintf("%.17g", v), ".0"))
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = encodeValue(e)
		}
		return proto.Array(parts...)
	case map[any]any:
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
			parts = append(parts, proto.String(k), encodeValue(vals[k]))
		}
		return proto.Array(parts...)
	case redis.Error:
		return proto.Error(v.Error())
	case error:
		return proto.Error(v.Error())
	}
	return proto.String(fmt.Sprint(v))
}
