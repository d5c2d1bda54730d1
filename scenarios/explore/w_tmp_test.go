package explore

import (
	"testing"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
)

func BenchmarkTmpNewWorld(b *testing.B) {
	in, _ := lockimpl.Lookup("redlock")
	o := Options{Faults: []sim.Fault{sim.FaultExpiry, sim.FaultPause}}.withDefaults()
	for b.Loop() {
		st, _ := NewWorld(in, *o.schedule(nil))
		st.Close()
	}
}

func BenchmarkTmpReplay10(b *testing.B) {
	in, _ := lockimpl.Lookup("redlock")
	o := Options{Faults: []sim.Fault{sim.FaultExpiry, sim.FaultPause}}.withDefaults()
	for b.Loop() {
		st, _ := NewWorld(in, *o.schedule(nil))
		for _, m := range []string{"A", "A/redis-1", "A/redis-2", "A/redis-3", "pause A", "time", "B", "B/redis-1", "B/redis-2", "B/redis-3"} {
			if err := st.Do(m); err != nil {
				b.Fatal(err)
			}
		}
		st.Close()
	}
}
