package scenarios

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
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

// wrongKey writes a key that is not its own.
type wrongKey struct{ env lockimpl.Env }

func (l wrongKey) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, "session:42", "x", l.env.TTL).Result()
}
func (l wrongKey) Release(ctx context.Context) error { return nil }

// failing returns an error from every call and sends nothing.
type failing struct{}

func (failing) TryAcquire(context.Context) (bool, error) { return false, errors.New("not configured") }
func (failing) Release(context.Context) error            { return errors.New("not configured") }

// A lock that names keys other than its own (the server refuses it) or
// that returns an error from every call without sending anything has no
// verdict: its cells are errors that say why; the others stand.
func TestMisbehavingImplementationIsACellError(t *testing.T) {
	impls := []lockimpl.Info{
		{Name: "wrong-key", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return wrongKey{env} }},
		{Name: "failing", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return failing{} }},
		mustImpl(t, "fenced"), // its fencing counter is {key}:fence: its own
	}
	s, _ := Lookup("get-then-del")
	results, err := CheckCells([]Scenario{s}, impls)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"the lock implementation wrong-key: A's SET was refused by redis-1: NOPERM this user has no permissions to access one of the keys",
		"sent no Redis command and returned an error from each of its",
	} {
		if r := results[i]; !strings.Contains(r.Error, want) || r.Pass {
			t.Errorf("%s: error %q, pass %v; want an error with %q", r.Impl, r.Error, r.Pass, want)
		}
	}
	if r := results[2]; r.Error != "" || !r.Pass {
		t.Errorf("fenced beside them: %+v", r)
	}
}
