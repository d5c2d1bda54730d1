package sentinel

import (
	"context"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Event is one message a Sentinel published about the master a Group
// watches: +sdown, -sdown, +odown, +try-failover, +elected-leader,
// +selected-slave, +promoted-slave, +switch-master, +failover-end,
// +convert-to-slave, +fix-slave-config, +sentinel, +slave, …
type Event struct {
	Kind     string    // the channel: "+sdown", "+switch-master", …
	Sentinel string    // the address of the Sentinel that said it
	Instance string    // what it is about: "master", "slave" or "sentinel"; "" when the message names no instance
	Addr     string    // that instance's address; for +switch-master the new master's
	From     string    // for +switch-master, the old master's address
	At       time.Time // when it was received
	Raw      string    // the message as published
}

// eventBuffer is how many events wait for a reader before the Sentinels'
// readers wait too.
const eventBuffer = 4096

// Events subscribes to every Sentinel's event channels (PSUBSCRIBE *) and
// sends on the channel what they say about the master name, each message
// as an Event, in the order each Sentinel said them. Messages that name no
// master at all are sent too, with Instance "": +new-epoch and
// +vote-for-leader (which Sentinel publishes for a master without naming
// it) and +tilt / -tilt (which concern every master). Messages about other
// masters are dropped. Events returns once every subscription is in place,
// so nothing said after it is missed; ctx bounds only that. stop ends the
// subscriptions and closes the channel; the caller must call it.
func (g *Group) Events(ctx context.Context, name string) (<-chan Event, func(), error) {
	out := make(chan Event, eventBuffer)
	done := make(chan struct{})
	var subs []*redis.PubSub
	var wg sync.WaitGroup
	var once sync.Once
	stop := func() {
		once.Do(func() {
			close(done)
			for _, ps := range subs {
				_ = ps.Close()
			}
			wg.Wait()
			close(out)
		})
	}
	for i, c := range g.clients {
		ps := c.PSubscribe(ctx, "*")
		subs = append(subs, ps)
		if _, err := ps.Receive(ctx); err != nil {
			stop()
			return nil, nil, g.describe(i, "PSUBSCRIBE *", err)
		}
		sentinel := g.addrs[i]
		ch := ps.Channel()
		wg.Go(func() {
			for msg := range ch {
				e, about, ok := parseEvent(msg.Channel, msg.Payload)
				if !ok || about != "" && about != name {
					continue
				}
				e.Sentinel, e.At = sentinel, time.Now()
				select {
				case out <- e:
				case <-done:
					return
				}
			}
		})
	}
	return out, stop, nil
}

// parseEvent reads a Sentinel message: on +switch-master
// "<master-name> <old-ip> <old-port> <new-ip> <new-port>"; on most others
// "<instance-type> <name> <ip> <port>", followed for a replica or a
// Sentinel by "@ <master-name> <master-ip> <master-port>" and for some by
// more ("#quorum 2/2"). about is the master the message is about, "" when
// it names none; ok is false for what is not a Sentinel event.
func parseEvent(channel, payload string) (e Event, about string, ok bool) {
	if channel == "" || strings.HasPrefix(channel, "__") {
		return Event{}, "", false
	}
	e = Event{Kind: channel, Raw: payload}
	f := strings.Fields(payload)
	if channel == "+switch-master" {
		if len(f) < 5 {
			return Event{}, "", false
		}
		e.Instance = "master"
		e.From = net.JoinHostPort(f[1], f[2])
		e.Addr = net.JoinHostPort(f[3], f[4])
		return e, f[0], true
	}
	if len(f) < 4 || f[0] != "master" && f[0] != "slave" && f[0] != "sentinel" {
		return e, "", true
	}
	e.Instance = f[0]
	e.Addr = net.JoinHostPort(f[2], f[3])
	switch {
	case len(f) >= 6 && f[4] == "@":
		about = f[5]
	case f[0] == "master":
		about = f[1]
	default:
		return Event{}, "", false // a replica or a Sentinel of no master
	}
	return e, about, true
}
