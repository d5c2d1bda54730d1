package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// The bench counts what each pair sends, skips what cannot run, and leaves
// no key behind. Five miniredis servers stand in for real ones.
func TestBench(t *testing.T) {
	var nodes []*redis.Options
	var servers []*miniredis.Miniredis
	for range 5 {
		s := miniredis.RunT(t)
		servers = append(servers, s)
		nodes = append(nodes, &redis.Options{Addr: s.Addr()})
	}
	// A key of someone else's, which the bench must not touch.
	servers[0].Set("theirs", "1")
	var impls []lockimpl.Info
	for _, name := range []string{"no-lock", "set-nx-ex", "uuid-get-del", "uuid-lua", "redlock", "fenced"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		impls = append(impls, in)
	}
	prefix, err := NewPrefix()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Nodes: nodes, Prefix: prefix, Duration: 30 * time.Millisecond, Impls: impls})
	if err != nil {
		t.Fatal(err)
	}
	if res.SetsPerSecond() <= 0 {
		t.Errorf("baseline %v SET/s", res.SetsPerSecond())
	}
	perPair := map[string][2]float64{ // at least, at most
		"set-nx-ex": {2, 2}, "uuid-get-del": {3, 3}, "uuid-lua": {2, 2}, "redlock": {10, 10}, "fenced": {2, 2},
	}
	for _, r := range res.Rows {
		if r.Impl == "no-lock" {
			if r.Skipped == "" {
				t.Errorf("no-lock ran: %+v", r)
			}
			continue
		}
		if r.Skipped != "" || r.Pairs == 0 {
			t.Errorf("%s did not run: %+v", r.Impl, r)
			continue
		}
		got := float64(r.Commands) / float64(r.Pairs)
		if want := perPair[r.Impl]; got < want[0] || got > want[1] {
			t.Errorf("%s: %.2f commands per pair, want %v", r.Impl, got, want)
		}
	}
	for i, s := range servers {
		keys := s.Keys()
		if i == 0 && strings.Join(keys, ",") != "theirs" || i > 0 && len(keys) != 0 {
			t.Errorf("server %d keeps %v", i+1, keys)
		}
	}
	var out bytes.Buffer
	if err := Print(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pairs/s", "×limit", "no-lock", "(sends no Redis command)", "redlock"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	// Too few servers: skipped, said why.
	res, err = Run(context.Background(), Config{Nodes: nodes[:1], Prefix: prefix, Duration: time.Millisecond, Impls: impls[4:5]})
	if err != nil || res.Rows[0].Skipped != "needs 5 servers, 1 given" {
		t.Errorf("redlock on one server: %+v, %v", res.Rows, err)
	}
}

// An unreachable server is named.
func TestBenchUnreachable(t *testing.T) {
	_, err := Run(context.Background(), Config{Nodes: []*redis.Options{{Addr: "127.0.0.1:1", MaxRetries: -1}}, Prefix: "x:", Duration: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("err = %v, want the address", err)
	}
}
