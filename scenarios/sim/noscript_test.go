package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

var ownScript = redis.NewScript("return redis.call('SET', KEYS[1], ARGV[1], 'NX')")

// ownFallback takes the lock with EVALSHA and, on NOSCRIPT, EVAL, calling
// go-redis's EvalSha and Eval itself (as redsync's adapter does); viaRun
// lets go-redis's Script.Run do it.
type ownFallback struct {
	env    lockimpl.Env
	viaRun bool
}

func (l *ownFallback) TryAcquire(ctx context.Context) (bool, error) {
	c, keys := l.env.Nodes[0], []string{l.env.Key}
	if l.viaRun {
		return true, ownScript.Run(ctx, c, keys, l.env.Token()).Err()
	}
	err := c.EvalSha(ctx, ownScript.Hash(), keys, l.env.Token()).Err()
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		err = c.Eval(ctx, "return redis.call('SET', KEYS[1], ARGV[1], 'NX')", keys, l.env.Token()).Err()
	}
	return err == nil, err
}
func (l *ownFallback) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}

// The narration of a NOSCRIPT names the code that called EVALSHA, read off
// its goroutine's stack: go-redis's Script.Run, or the lock's own function
// (issue #29 item 8).
func TestNoScriptNamesTheCaller(t *testing.T) {
	for viaRun, want := range map[bool]string{
		true:  "go-redis's Script.Run sends it whole next (EVAL)",
		false: "sim.(*ownFallback).TryAcquire sends it whole next (EVAL)",
	} {
		info := lockimpl.Info{Name: "own-fallback", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
			return &ownFallback{env: env, viaRun: viaRun}
		}}
		tr, err := runA(info)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range tr.Events {
			if strings.HasPrefix(e.Reply, "(error) NOSCRIPT") {
				found = true
				if !strings.Contains(e.Text.EN, want) {
					t.Errorf("via Script.Run %v: %q, want %q in it", viaRun, e.Text.EN, want)
				}
			}
		}
		if !found {
			t.Errorf("via Script.Run %v: no NOSCRIPT in %v", viaRun, commands(tr))
		}
	}
}
