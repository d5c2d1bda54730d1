package scenarios

import (
	"context"
	"reflect"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// A check that keeps some cells' traces (KeepTraces) keeps those whole and
// drops the others', and judges every cell as a check that keeps them all.
func TestKeepTracesDropsTheOthers(t *testing.T) {
	var scs []Scenario
	for _, id := range []string{"setnx-no-ex", "del-other", "get-then-del"} {
		s, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, s)
	}
	var impls []lockimpl.Info
	for _, name := range []string{"set-nx-ex", "uuid-lua"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		impls = append(impls, in)
	}
	all, err := CheckCellsOn(context.Background(), nil, scs, impls, 2)
	if err != nil {
		t.Fatal(err)
	}
	broke := func(r Result) bool { return len(r.Broken) > 0 }
	some, err := CheckCellsOn(context.Background(), nil, scs, impls, 2, KeepTraces(broke))
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i, r := range some {
		a := all[i]
		if a.Trace == nil {
			t.Fatalf("%s × %s: no trace by default", a.Scenario, a.Impl)
		}
		switch {
		case broke(a) && (r.Trace == nil || !reflect.DeepEqual(r.Trace.Events, a.Trace.Events)):
			t.Errorf("%s × %s broke %v: its trace is not kept whole", a.Scenario, a.Impl, a.Broken)
		case !broke(a) && r.Trace != nil:
			t.Errorf("%s × %s broke nothing: its trace is kept", a.Scenario, a.Impl)
		}
		if r.Trace != nil {
			kept++
		}
		r.Trace, a.Trace = nil, nil
		if !reflect.DeepEqual(r, a) {
			t.Errorf("keeping some traces, %+v\nkeeping all, %+v", r, a)
		}
	}
	if kept == 0 || kept == len(some) {
		t.Errorf("%d of %d traces kept: the test wants cells of both kinds", kept, len(some))
	}
}
