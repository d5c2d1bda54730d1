package text

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 moves"}, {1, "1 move"}, {2, "2 moves"}, {10, "10 moves"}} {
		if got := Count(tc.n, "move", "moves"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
