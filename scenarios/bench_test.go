package scenarios

import (
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// BenchmarkScenario plays one cell: the GET-then-DEL race against the
// implementation it catches.
func BenchmarkScenario(b *testing.B) {
	s, _ := Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	for b.Loop() {
		if _, err := s.Run(impl); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatrix runs what "lockstep check" runs: every failure mode
// against every implementation. Target: ≤ 0.3 s on the 2-core machine.
func BenchmarkMatrix(b *testing.B) {
	for b.Loop() {
		if _, err := Check(); err != nil {
			b.Fatal(err)
		}
	}
}
