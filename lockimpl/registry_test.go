package lockimpl_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

func TestLookupUnknown(t *testing.T) {
	// A typo must not silently pick some lock; the error tells the user the
	// valid choices.
	_, err := lockimpl.Lookup("redlock2")
	if err == nil {
		t.Fatal("Lookup of an unknown name succeeded")
	}
	// Split into whole words so that "setnx" is not found inside
	// "setnx-expire".
	words := strings.FieldsFunc(err.Error(), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	for _, name := range lockimpl.Names() {
		if !slices.Contains(words, name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
	if !strings.Contains(err.Error(), "redlock2") {
		t.Errorf("error %q does not name what was asked for", err)
	}
}

func TestLookupKnown(t *testing.T) {
	for _, want := range lockimpl.All() {
		t.Run(want.Name, func(t *testing.T) {
			got, err := lockimpl.Lookup(want.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != want.Name || got.Nodes != want.Nodes || got.Summary != want.Summary {
				t.Errorf("Lookup(%q) = %+v, want %+v", want.Name, got, want)
			}
		})
	}
}

func TestNamesMatchAll(t *testing.T) {
	var fromAll []string
	for _, in := range lockimpl.All() {
		fromAll = append(fromAll, in.Name)
	}
	if got := lockimpl.Names(); !slices.Equal(got, fromAll) {
		t.Fatalf("Names() = %v, want All() order %v", got, fromAll)
	}
	if len(fromAll) == 0 {
		t.Fatal("an empty catalogue")
	}
	// Most naive first: each of these fixes the one before it (its Fixes
	// says what), and a failure mode's fix is looked for after the naive
	// implementation (scenarios.Fix). The uncapped watchdog follows the
	// capped one. Implementations not named here may go anywhere.
	for _, pair := range [][2]string{
		{"setnx", "setnx-expire"},
		{"setnx-expire", "set-nx-ex"},
		{"set-nx-ex", "uuid-get-del"},
		{"uuid-get-del", "uuid-lua"},
		{"uuid-lua", "uuid-lua-watchdog"},
		{"uuid-lua-watchdog", "uuid-lua-watchdog-uncapped"},
	} {
		if i, j := slices.Index(fromAll, pair[0]), slices.Index(fromAll, pair[1]); i < 0 || j < 0 || i >= j {
			t.Errorf("catalogue %v: want %s before %s (most naive first)", fromAll, pair[0], pair[1])
		}
	}
	seen := map[string]bool{}
	for _, n := range fromAll {
		if seen[n] {
			t.Errorf("name %q registered twice", n)
		}
		seen[n] = true
	}
}

func TestAllReturnsACopy(t *testing.T) {
	// Callers may reorder or edit what All returns; the catalogue must not
	// change under them.
	all := lockimpl.All()
	all[0].Name = "mutated"
	all[0].New = nil
	if got := lockimpl.All()[0].Name; got == "mutated" {
		t.Fatal("All() exposes the catalogue itself")
	}
	if _, err := lockimpl.Lookup("mutated"); err == nil {
		t.Fatal("Lookup finds a name written into All()'s result")
	}
}

func TestInfoComplete(t *testing.T) {
	// Every entry is shown in both languages and says what it needs.
	for _, in := range lockimpl.All() {
		t.Run(in.Name, func(t *testing.T) {
			for field, s := range map[string]text.Text{"Summary": in.Summary, "Fixes": in.Fixes, "Misses": in.Misses} {
				if strings.TrimSpace(s.EN) == "" {
					t.Errorf("%s.EN is empty", field)
				}
				if strings.TrimSpace(s.ZH) == "" {
					t.Errorf("%s.ZH is empty", field)
				} else if !strings.ContainsFunc(s.ZH, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
					t.Errorf("%s.ZH = %q has no Chinese text", field, s.ZH)
				}
			}
			if in.Nodes < 1 {
				t.Errorf("Nodes = %d, want ≥ 1", in.Nodes)
			}
			if in.New == nil {
				t.Fatal("New is nil")
			}
			if l := in.New(lockimpl.Env{Key: testKey, TTL: testTTL}); l == nil {
				t.Error("New returned a nil Lock")
			}
		})
	}
	if in, _ := lockimpl.Lookup("redlock"); in.Nodes != lockimpl.RedlockNodes {
		t.Errorf("redlock Nodes = %d, want %d", in.Nodes, lockimpl.RedlockNodes)
	}
}
