package sim

import (
	"context"
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// pipelined takes its lock with SET NX and a PEXPIRE sent in one pipeline,
// and releases it with a transaction: the pipeline's commands are steps of
// their own, the transaction one step.
type pipelined struct{ env lockimpl.Env }

func (l pipelined) TryAcquire(ctx context.Context) (bool, error) {
	var set *redis.BoolCmd
	_, err := l.env.Nodes[0].Pipelined(ctx, func(p redis.Pipeliner) error {
		set = p.SetNX(ctx, l.env.Key, l.env.Token(), 0)
		p.PExpire(ctx, l.env.Key, l.env.TTL)
		return nil
	})
	return set.Val(), err
}

func (l pipelined) Release(ctx context.Context) error {
	_, err := l.env.Nodes[0].TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, l.env.Key)
		return nil
	})
	return err
}

// Issue #27: a pipeline and a transaction are steps of the lesson, shown as
// Redis shows them, with every reply: they used to be refused ("pipelines
// are not supported by the simulator").
func TestPipelineAndTransactionAreSteps(t *testing.T) {
	info := lockimpl.Info{Name: "pipelined", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return pipelined{e} }}
	tr, err := Run(model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{})
		tl.RunToEnd()
	}, info)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 NX → OK",
		"0s A redis-1 PEXPIRE lock:product:1001 30000 → (integer) 1",
		"0s A redis-1 MULTI; DEL lock:product:1001; EXEC → 1) (integer) 1",
	})
	if k, ok := key(tr.Events[len(tr.Events)-1].Snap, "redis-1", "lock:product:1001"); ok {
		t.Errorf("the transaction's DEL left %v", k)
	}
}

// Issue #27: the server runs a pipeline's commands one after another, and
// another client's command may land between two of them: B's SET NX comes
// between A's SET NX and its PEXPIRE. A's PEXPIRE left with its SET NX, so
// a pause of A that strikes between them does not keep it back.
func TestPipelineLetsOthersBetween(t *testing.T) {
	info := lockimpl.Info{Name: "pipelined", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return pipelined{e} }}
	s, err := NewStepper(model.Setup{}, []model.Program{{}, {}}, info, []trace.Fault{FaultPause})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	do := func(id string) {
		t.Helper()
		if err := s.Do(id); err != nil {
			t.Fatal(err)
		}
	}
	// A starts and its SET NX goes; then A is paused, with its PEXPIRE on
	// the wire.
	for len(commands(s.Trace())) == 0 {
		do("A")
	}
	do("pause A")
	for len(commands(s.Trace())) == 1 {
		do("B")
	}
	ids := []string{}
	for _, m := range s.Moves() {
		ids = append(ids, m.ID)
	}
	if !slices.Contains(ids, "A") {
		t.Fatalf("moves %v: A's PEXPIRE, sent with its SET NX, is kept back by A's pause", ids)
	}
	do("A")
	equal(t, commands(s.Trace())[:3], []string{
		"0s A redis-1 SET lock:product:1001 A#1 NX → OK",
		"0s B redis-1 SET lock:product:1001 B#1 NX → (nil)",
		"0s A redis-1 PEXPIRE lock:product:1001 30000 → (integer) 1",
	})
}
