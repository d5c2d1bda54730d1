package sim

import (
	"strings"
	"testing"
	"time"
)

// Each guard refuses exactly the writes it is about, and lets the rest
// through.
func TestGuardRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		guard Guard
		stock int
		// Two writers: both read at version 0, then write in turn.
		wantRefused []bool
		wantValue   int
	}{
		{"none", GuardNone, 5, []bool{false, false}, 4},
		{"version", GuardVersion, 5, []bool{false, true}, 4},
		// WHERE stock > 0 lets a stale write through while items are left …
		{"in-stock with stock left", GuardInStock, 5, []bool{false, false}, 4},
		// … and stops the sale of an item that is gone.
		{"in-stock on the last item", GuardInStock, 1, []bool{false, true}, 0},
		{"unique", GuardUnique, 5, []bool{false, true}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &resource{name: "stock", value: tc.stock, guard: tc.guard}
			readVal, readVer := r.value, r.version
			for i, c := range []string{"A", "B"} {
				got := r.write(c, readVal-1, readVer, 0)
				if got.rejected != tc.wantRefused[i] {
					t.Errorf("%s's write: rejected = %v, want %v", c, got.rejected, tc.wantRefused[i])
				}
				if got.rejected && got.guard != tc.guard {
					t.Errorf("%s's write refused by %q, want %q", c, got.guard, tc.guard)
				}
				if !got.rejected && i == 1 && !got.lostUpdate {
					t.Errorf("%s's accepted write on a stale read is no lost update", c)
				}
			}
			if r.value != tc.wantValue {
				t.Errorf("stock = %d, want %d", r.value, tc.wantValue)
			}
		})
	}
}

// A unique key names the unit sold: a later sale of another unit passes.
func TestGuardUniqueAllowsTheNextUnit(t *testing.T) {
	r := &resource{name: "stock", value: 5, guard: GuardUnique}
	if got := r.write("A", 4, 0, 0); got.rejected {
		t.Fatal("first sale refused")
	}
	if got := r.write("B", 3, 1, 0); got.rejected {
		t.Fatal("the sale of unit #4 after unit #5 refused")
	}
	if got := r.write("C", 4, 0, 0); !got.rejected || got.guard != GuardUnique {
		t.Fatalf("a second sale of unit #5: %+v", got)
	}
}

func TestParseGuard(t *testing.T) {
	for _, g := range Guards {
		if got, err := ParseGuard(string(g)); err != nil || got != g {
			t.Errorf("ParseGuard(%q) = %q, %v", g, got, err)
		}
	}
	if _, err := ParseGuard("versions"); err == nil || !strings.Contains(err.Error(), "version, in-stock or unique") {
		t.Errorf("unknown guard: err = %v, want the valid names", err)
	}
}

// A buyer that reads a stock of 0 sells nothing: with a lock, one item and
// two buyers end at 0, not -1; and the guard's refusal is narrated with the
// guard's own words, not a fencing token's.
func TestSoldOutAndRefusalNarration(t *testing.T) {
	script := func(tl *Timeline) {
		tl.Client("A", Program{Work: time.Second})
		tl.Client("B", Program{Start: 100 * time.Millisecond, Retry: 2 * time.Second, Work: time.Second})
		tl.RunToEnd()
	}
	tr := run(t, Setup{Stock: 1}, "uuid-lua", script)
	if v := last(tr).Resource.Value; v != 0 {
		t.Errorf("stock = %d after two buyers of one item with a lock, want 0", v)
	}
	if !hasText(tr, "sold out, it sells nothing") {
		t.Error("no sold-out event")
	}
	tr = run(t, Setup{Stock: 1, Guard: GuardInStock}, "no-lock", script)
	if !hasText(tr, "UPDATE … WHERE stock > 0 matches no row") || hasText(tr, "fencing token") {
		t.Errorf("refusal narration:\n%s", strings.Join(texts(tr), "\n"))
	}
	if v := last(tr).Resource; v.Value != 0 || v.Rejected != 1 {
		t.Errorf("resource = %+v, want stock 0 and one refused write", v)
	}
}

func hasText(tr *Trace, s string) bool {
	for _, e := range tr.Events {
		if strings.Contains(e.Text.EN, s) {
			return true
		}
	}
	return false
}

func texts(tr *Trace) []string {
	var out []string
	for _, e := range tr.Events {
		out = append(out, e.Text.EN)
	}
	return out
}
