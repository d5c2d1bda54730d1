package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	redsyncredis "github.com/go-redsync/redsync/v4/redis"

	"github.com/lockstep-sim/lockstep/internal/randtoken"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Issue #38, "Random tokens": a lock that draws its own tokens (crypto/rand
// in hex, a random UUID, redsync's own 16 random bytes in base64) gives the
// same trace twice through the same lesson, byte for byte, but for the raw
// values the trace keeps in Trace.Tokens: everywhere else each value goes
// by its canonical name, A~1 for A's first. Before, each run's trace had
// its own random values in every command, reply and snapshot.
func TestOwnTokensGiveTheSameTraceTwice(t *testing.T) {
	lessons := []string{"get-then-del", "lease-too-short", "gc-pause", "give-up"}
	for _, info := range []lockimpl.Info{randtoken.Hex, randtoken.UUID, redsyncOwnValues} {
		for _, id := range lessons {
			s, err := Lookup(id)
			if err != nil {
				t.Fatal(err)
			}
			var body [2][]byte
			var raw [2][]trace.RawToken
			for i := range body {
				tr, err := s.Run(info)
				if err != nil {
					t.Fatalf("%s × %s: %v", id, info.Name, err)
				}
				b, err := json.MarshalIndent(tr, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				for _, tok := range tr.Tokens {
					if !bytes.Contains(b, []byte(`"value": "`+tok.Value+`"`)) {
						t.Errorf("%s × %s: the raw value %s is not in the JSON", id, info.Name, tok.Value)
					}
					if strings.Count(string(b), tok.Value) != 1 {
						t.Errorf("%s × %s: the raw value %s shows %d times in the JSON, not once (in tokens)", id, info.Name, tok.Value, strings.Count(string(b), tok.Value))
					}
				}
				raw[i] = tr.Tokens
				tr.Tokens = nil
				body[i], _ = json.MarshalIndent(tr, "", "  ")
			}
			if len(raw[0]) == 0 || len(raw[1]) == 0 {
				t.Errorf("%s × %s: no token of the lock's own was named", id, info.Name)
			} else if raw[0][0].Name != "A~1" || raw[0][0].Value == raw[1][0].Value {
				t.Errorf("%s × %s: first tokens %+v and %+v: want A~1 for each, two random values", id, info.Name, raw[0][0], raw[1][0])
			}
			if !bytes.Equal(body[0], body[1]) {
				t.Errorf("%s × %s: the traces differ beyond their tokens' raw values, first at %s", id, info.Name, firstDiff(body[0], body[1]))
			}
		}
	}
}

// firstDiff is the line where a and b first differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strings.TrimSpace(la[i]) + " | " + strings.TrimSpace(lb[i])
		}
	}
	return "the end"
}

// redsyncOwnValues is lockimpl's redsync adapter without its value
// generator: redsync draws 16 bytes of crypto/rand, in base64.
var redsyncOwnValues = lockimpl.Info{Name: "redsync-own-values", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
	m := redsync.New([]redsyncredis.Pool{goredis.NewPool(env.Nodes[0])}...).NewMutex(env.Key,
		redsync.WithExpiry(env.TTL), redsync.WithTries(1), redsync.WithTimeoutFactor(2))
	return &mutexLock{m: m}
}}

// mutexLock is a redsync mutex as a lockimpl.Lock.
type mutexLock struct {
	m    *redsync.Mutex
	held bool
}

func (l *mutexLock) TryAcquire(ctx context.Context) (bool, error) {
	l.held = l.m.TryLockContext(ctx) == nil
	return l.held, nil
}

func (l *mutexLock) Release(ctx context.Context) error {
	if !l.held {
		return lockimpl.ErrNotHeld
	}
	l.held = false
	if ok, _ := l.m.UnlockContext(ctx); !ok {
		return lockimpl.ErrNotHeld
	}
	return nil
}
