package race

import "testing"

func TestSampled(t *testing.T) {
	n := 0
	for i := range 100 {
		if Sampled(i) {
			n++
		}
	}
	want := 100
	if Enabled {
		want = 15 // 0, 7, …, 98
	}
	if n != want {
		t.Errorf("%d of 100 cells sampled (race detector %v), want %d", n, Enabled, want)
	}
}
