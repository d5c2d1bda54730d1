package sim

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"lockstep/lockimpl"
)

// pipelined takes its lock with SET NX and a PEXPIRE sent in one pipeline,
// and releases it with a transaction: both run, each as one step.
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
	tr, err := Run(Setup{}, func(tl *Timeline) {
		tl.Client("A", Program{})
		tl.RunToEnd()
	}, info)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 NX; PEXPIRE lock:product:1001 30000 → OK; (integer) 1",
		"0s A redis-1 MULTI; DEL lock:product:1001; EXEC → 1) (integer) 1",
	})
	if k, ok := key(tr.Events[len(tr.Events)-1].Snap, "redis-1", "lock:product:1001"); ok {
		t.Errorf("the transaction's DEL left %v", k)
	}
}
