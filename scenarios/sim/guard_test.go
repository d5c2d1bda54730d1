package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Each guard refuses exactly the writes it is about, and lets the rest
// through.
func TestGuardRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		guard trace.Guard
		stock int
		// Two writers: both read at version 0, then write in turn.
		wantRefused []bool
		wantValue   int
	}{
		{"none", trace.GuardNone, 5, []bool{false, false}, 4},
		{"version", trace.GuardVersion, 5, []bool{false, true}, 4},
		// WHERE stock > 0 lets a stale write through while items are left …
		{"in-stock with stock left", trace.GuardInStock, 5, []bool{false, false}, 4},
		// … and stops the sale of an item that is gone.
		{"in-stock on the last item", trace.GuardInStock, 1, []bool{false, true}, 0},
		{"unique", trace.GuardUnique, 5, []bool{false, true}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &model.Resource{Name: "stock", Value: tc.stock, Guard: tc.guard}
			readVal, readVer := r.Value, r.Version
			for i, c := range []string{"A", "B"} {
				got := r.Write(c, readVal-1, readVer, 0, "")
				if got.Rejected != tc.wantRefused[i] {
					t.Errorf("%s's write: rejected = %v, want %v", c, got.Rejected, tc.wantRefused[i])
				}
				if got.Rejected && got.Guard != tc.guard {
					t.Errorf("%s's write refused by %q, want %q", c, got.Guard, tc.guard)
				}
				if !got.Rejected && i == 1 && !got.LostUpdate {
					t.Errorf("%s's accepted write on a stale read is no lost update", c)
				}
			}
			if r.Value != tc.wantValue {
				t.Errorf("stock = %d, want %d", r.Value, tc.wantValue)
			}
		})
	}
}

// A relative update is a decrement of the stock as it is: two sales based
// on the same read both count, neither is a lost update, and the sale that
// finds the stock at 0 is refused, as with in-stock. A fencing token still
// refuses an old holder's sale.
func TestGuardRelativeLosesNoSale(t *testing.T) {
	r := &model.Resource{Name: "stock", Value: 2, Guard: trace.GuardRelative}
	readVal, readVer := r.Value, r.Version
	for i, want := range []struct {
		rejected bool
		value    int
	}{{false, 1}, {false, 0}, {true, 0}} {
		c := string(rune('A' + i))
		got := r.Write(c, readVal-1, readVer, 0, "")
		if got.Rejected != want.rejected || got.LostUpdate || r.Value != want.value {
			t.Errorf("%s's sale on a read of %d: rejected = %v, lost update = %v, stock %d; want rejected = %v, no lost update, stock %d",
				c, readVal, got.Rejected, got.LostUpdate, r.Value, want.rejected, want.value)
		}
		if got.Rejected && got.Guard != trace.GuardRelative {
			t.Errorf("%s's sale refused by %q, want %q", c, got.Guard, trace.GuardRelative)
		}
	}
	f := &model.Resource{Name: "stock", Value: 5, Guard: trace.GuardRelative}
	f.Read(2, "")
	if got := f.Write("A", 4, 0, 1, ""); !got.Rejected || got.Guard != trace.GuardNone || f.Value != 5 {
		t.Errorf("a sale with fencing token 1 after 2 was seen: %+v, stock %d", got, f.Value)
	}
}

// In a run without a lock, three buyers of two items: with relative
// updates the stock ends at 0, nothing is lost and the third sale is
// refused; the same run writing back read-minus-one loses a sale.
func TestGuardRelativeInARun(t *testing.T) {
	script := func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Start: 100 * time.Millisecond, Retry: 2 * time.Second, Work: time.Second})
		tl.Client("C", model.Program{Start: 200 * time.Millisecond, Retry: 2 * time.Second, Work: time.Second})
		tl.RunToEnd()
	}
	tr := run(t, model.Setup{Stock: 2, Guard: trace.GuardRelative}, "no-lock", script)
	if got := brokenInvariants(tr); slices.Contains(got, invariant.Resource) || !slices.Contains(got, invariant.Mutex) {
		t.Errorf("broken %v, want mutex and not resource", got)
	}
	if v := last(tr).Resource; v.Value != 0 || v.Rejected != 1 || v.Version != 2 {
		t.Errorf("resource = %+v, want stock 0 after two sales and one refused", v)
	}
	for _, s := range []string{"takes stock:product:1001 from 1 to 0 — the stock as it is now, not the 2 B read: no sale is lost",
		"the store refuses C's sale: the stock is already 0 (UPDATE … SET stock = stock - 1 WHERE stock > 0 matches no row)"} {
		if !hasText(tr, s) {
			t.Errorf("no %q in:\n%s", s, strings.Join(texts(tr), "\n"))
		}
	}
	tr = run(t, model.Setup{Stock: 2}, "no-lock", script)
	if !slices.Contains(brokenInvariants(tr), invariant.Resource) {
		t.Errorf("without the guard: broken %v, want resource", brokenInvariants(tr))
	}
}

// A unique key names the unit sold: a later sale of another unit passes.
func TestGuardUniqueAllowsTheNextUnit(t *testing.T) {
	r := &model.Resource{Name: "stock", Value: 5, Guard: trace.GuardUnique}
	if got := r.Write("A", 4, 0, 0, ""); got.Rejected {
		t.Fatal("first sale refused")
	}
	if got := r.Write("B", 3, 1, 0, ""); got.Rejected {
		t.Fatal("the sale of unit #4 after unit #5 refused")
	}
	if got := r.Write("C", 4, 0, 0, ""); !got.Rejected || got.Guard != trace.GuardUnique {
		t.Fatalf("a second sale of unit #5: %+v", got)
	}
}

// The token guard is a check-and-set on the lock's token: A and B each stamp
// the row as they read it, so only the last to stamp writes. Tokens that do
// not tell the holders apart (a constant value) let the stale write land.
func TestGuardTokenRefusesAnOverstampedWrite(t *testing.T) {
	for _, tc := range []struct {
		name, a, b  string
		wantRefused bool
	}{
		{"unique tokens", "A#1", "B#1", true},
		{"a constant value", "1", "1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &model.Resource{Name: "stock", Value: 5, Guard: trace.GuardToken}
			r.Read(0, tc.a) // A starts on the row …
			r.Read(0, tc.b) // … B starts on it after A's lease ran out
			if got := r.Write("B", 4, 0, 0, tc.b); got.Rejected {
				t.Fatalf("B's write refused: %+v", got)
			}
			got := r.Write("A", 4, 0, 0, tc.a)
			if got.Rejected != tc.wantRefused || got.Rejected && (got.Guard != trace.GuardToken || got.Owner != tc.b) {
				t.Errorf("A's stale write: %+v, want rejected = %v by the token guard", got, tc.wantRefused)
			}
		})
	}
}

// In a run, a client's token is what its acquire wrote on the lock's key:
// after a pause past the lease, uuid-lua's A#1 is refused, set-nx-ex's "1"
// is not.
func TestGuardTokenInARun(t *testing.T) {
	script := func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: 5 * time.Second})
		tl.Client("B", model.Program{Start: time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		a.HoldAt(trace.OpWrite)
		tl.RunUntil(5500 * time.Millisecond)
		a.Pause()
		tl.RunUntil(45500 * time.Millisecond)
		a.Resume()
		a.Unhold()
		tl.RunToEnd()
	}
	for impl, wantRefused := range map[string]bool{"uuid-lua": true, "set-nx-ex": false, "reentrant": true} {
		tr := run(t, model.Setup{Guard: trace.GuardToken}, impl, script)
		refused := last(tr).Resource.Rejected == 1
		if refused != wantRefused || slices.Contains(brokenInvariants(tr), invariant.Resource) == wantRefused {
			t.Errorf("%s: refused = %v, broken %v; want refused = %v", impl, refused, brokenInvariants(tr), wantRefused)
		}
		if !hasText(tr, "stamps the row with its lock token") {
			t.Errorf("%s: no stamp narrated:\n%s", impl, strings.Join(texts(tr), "\n"))
		}
	}
}

func TestParseGuard(t *testing.T) {
	for _, g := range trace.Guards {
		if got, err := trace.ParseGuard(string(g)); err != nil || got != g {
			t.Errorf("ParseGuard(%q) = %q, %v", g, got, err)
		}
	}
	if _, err := trace.ParseGuard("versions"); err == nil || err.Error() != `unknown guard "versions"; did you mean version? valid: version, in-stock, relative, unique, token, idempotent` {
		t.Errorf("unknown guard: err = %v, want a suggestion and the valid names", err)
	}
}

// A buyer that reads a stock of 0 sells nothing: with a lock, one item and
// two buyers end at 0, not -1; and the guard's refusal is narrated with the
// guard's own words, not a fencing token's.
func TestSoldOutAndRefusalNarration(t *testing.T) {
	script := func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Start: 100 * time.Millisecond, Retry: 2 * time.Second, Work: time.Second})
		tl.RunToEnd()
	}
	tr := run(t, model.Setup{Stock: 1}, "uuid-lua", script)
	if v := last(tr).Resource.Value; v != 0 {
		t.Errorf("stock = %d after two buyers of one item with a lock, want 0", v)
	}
	if !hasText(tr, "sold out, it sells nothing") {
		t.Error("no sold-out event")
	}
	tr = run(t, model.Setup{Stock: 1, Guard: trace.GuardInStock}, "no-lock", script)
	if !hasText(tr, "UPDATE … WHERE stock > 0 matches no row") || hasText(tr, "fencing token") {
		t.Errorf("refusal narration:\n%s", strings.Join(texts(tr), "\n"))
	}
	if v := last(tr).Resource; v.Value != 0 || v.Rejected != 1 {
		t.Errorf("resource = %+v, want stock 0 and one refused write", v)
	}
}

func hasText(tr *trace.Trace, s string) bool {
	for _, e := range tr.Events {
		if strings.Contains(e.Text.EN, s) {
			return true
		}
	}
	return false
}

func texts(tr *trace.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		out = append(out, e.Text.EN)
	}
	return out
}
