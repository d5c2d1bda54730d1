package explore

import (
	"context"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

func bench(b *testing.B, name string, opts Options) {
	in, err := lockimpl.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	var r Result
	for b.Loop() {
		if r, err = Search(context.Background(), in, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.States), "states")
	b.ReportMetric(float64(r.States)/r.Elapsed.Seconds(), "states/s")
}

// The time to the first counterexample against set-nx-ex (its DEL removes
// the next holder's lock), two clients, expiry only. Target: ≤ 1 s.
func BenchmarkFirstCounterexample(b *testing.B) {
	bench(b, "set-nx-ex", Options{First: true})
}

// The documented bound for uuid-lua: three clients, two attempts each,
// expiry only — searched completely, nothing breaks. Target: ≤ 30 s.
func BenchmarkSearchUUIDLua(b *testing.B) {
	bench(b, "uuid-lua", Options{Clients: 3, Attempts: 2})
}

// Redlock (three nodes) with a pause per client, to depth 14: every
// schedule, since none breaks mutex before the pause lifts the lease rule.
func BenchmarkSearchRedlockPause(b *testing.B) {
	bench(b, "redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 14})
}

// Three clients with a pause each against uuid-lua, to depth 11.
func BenchmarkSearchThreePause(b *testing.B) {
	bench(b, "uuid-lua", Options{Clients: 3, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 11})
}

func BenchmarkSearchRedsyncRedlock(b *testing.B) {
	bench(b, "redsync-redlock", Options{Depth: 6})
}

// redsync on one server, to depth 8: the library sends from a goroutine of
// its own, as on five.
func BenchmarkSearchRedsync(b *testing.B) {
	bench(b, "redsync", Options{Depth: 8})
}
