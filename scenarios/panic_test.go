package scenarios

import (
	"context"
	"strings"
	"testing"

	"lockstep/lockimpl"
)

type panicky struct{ when string }

func (p panicky) TryAcquire(context.Context) (bool, error) {
	if p.when == "acquire" {
		panic("boom in TryAcquire")
	}
	return true, nil
}

func (p panicky) Release(context.Context) error {
	if p.when == "release" {
		panic("boom in Release")
	}
	return nil
}

// A lock that panics — in its Maker, its acquire or its release — is that
// implementation's failure, in the cell it ran in; the other cells stand,
// and the process lives on.
func TestPanickingImplementationIsACellError(t *testing.T) {
	impls := []lockimpl.Info{
		{Name: "panics-in-new", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { panic("boom in New") }},
		{Name: "panics-in-acquire", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return panicky{"acquire"} }},
		{Name: "panics-in-release", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return panicky{"release"} }},
		{Name: "nil-lock", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return nil }},
		mustImpl(t, "uuid-lua"),
	}
	s, _ := Lookup("get-then-del")
	results, err := CheckCells([]Scenario{s}, impls)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"panicked in New: boom in New", "panicked: boom in TryAcquire", "panicked: boom in Release", "New returned no lock"} {
		if r := results[i]; !strings.Contains(r.Error, want) || r.Pass {
			t.Errorf("%s: error %q, pass %v; want an error with %q", r.Impl, r.Error, r.Pass, want)
		}
	}
	if r := results[4]; r.Error != "" || !r.Pass {
		t.Errorf("uuid-lua beside them: %+v", r)
	}
}
