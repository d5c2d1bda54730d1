package sentinel

import (
	"testing"
)

// Sentinel's messages, as redis-server 7.0 publishes them, read into
// Events: which master each is about, and which are not events at all.
func TestParseEvent(t *testing.T) {
	for _, c := range []struct {
		channel, payload string
		want             Event
		about            string
		ok               bool
	}{
		{"+sdown", "master run-1 127.0.0.1 6380", Event{Instance: "master", Addr: "127.0.0.1:6380"}, "run-1", true},
		{"+odown", "master run-1 127.0.0.1 6380 #quorum 3/2", Event{Instance: "master", Addr: "127.0.0.1:6380"}, "run-1", true},
		{"+selected-slave", "slave 127.0.0.1:6381 127.0.0.1 6381 @ run-1 127.0.0.1 6380",
			Event{Instance: "slave", Addr: "127.0.0.1:6381"}, "run-1", true},
		{"+sentinel", "sentinel 3ba5632eefea5f17b9067861b7de79d5662604a0 127.0.0.1 26379 @ run-2 127.0.0.1 6390",
			Event{Instance: "sentinel", Addr: "127.0.0.1:26379"}, "run-2", true},
		{"-role-change", "slave 127.0.0.1:6381 127.0.0.1 6381 @ run-1 127.0.0.1 6380 new reported role is master",
			Event{Instance: "slave", Addr: "127.0.0.1:6381"}, "run-1", true},
		{"+switch-master", "run-1 127.0.0.1 6380 127.0.0.1 6381",
			Event{Instance: "master", Addr: "127.0.0.1:6381", From: "127.0.0.1:6380"}, "run-1", true},
		{"+new-epoch", "2", Event{}, "", true},
		{"+vote-for-leader", "3ba5632eefea5f17b9067861b7de79d5662604a0 2", Event{}, "", true},
		{"+tilt", "#tilt mode entered", Event{}, "", true},
		{"+switch-master", "run-1 127.0.0.1", Event{}, "", false},
		{"+slave", "slave 127.0.0.1:6381 127.0.0.1 6381", Event{}, "", false},
		{"__sentinel__:hello", "127.0.0.1,26379,id,0,run-1,127.0.0.1,6380,0", Event{}, "", false},
	} {
		e, about, ok := parseEvent(c.channel, c.payload)
		if ok != c.ok || about != c.about {
			t.Errorf("%s %q: about %q, %v; want %q, %v", c.channel, c.payload, about, ok, c.about, c.ok)
			continue
		}
		if !ok {
			continue
		}
		c.want.Kind, c.want.Raw = c.channel, c.payload
		if e != c.want {
			t.Errorf("%s %q:\n got %+v\nwant %+v", c.channel, c.payload, e, c.want)
		}
	}
}
