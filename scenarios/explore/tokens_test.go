package explore

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// ownTokens is the catalogue's lock name with its tokens drawn as a library
// draws them, not from the simulator: a random UUID from crypto/rand for every
// token it asks for, which no two replays of a schedule share.
func ownTokens(t *testing.T, name string) lockimpl.Info {
	t.Helper()
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	mk := in.New
	in.Name += "+uuid"
	in.New = func(env lockimpl.Env) lockimpl.Lock {
		env.Token = func() string {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
		}
		return mk(env)
	}
	return in
}

// A lock that draws its own random tokens searches the same state space as
// the same lock on the simulator's readable ones (issue #13, item 5): the
// state hash names tokens by where they stand, not by what they spell, so a
// fresh UUID on every replay does not make every state look new. Each lock
// stands for one way a token is kept: a string value (uuid-lua; redislock,
// whose SET NX PX is inside a Lua script), a hash field beside a hold count
// (reentrant), a value beside a fencing counter that must not be renamed
// (fenced), the same value on three nodes (redlock); under pauses and a
// failover, in pending replication too.
func TestOwnTokensSameStates(t *testing.T) {
	heavy(t)
	pause := []trace.Fault{sim.FaultExpiry, sim.FaultPause}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"uuid-lua", Options{}},
		{"redislock", Options{}}, // the issue's: 6,523 states with its own tokens, not 153
		{"uuid-lua", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultFailover}, Depth: 8}},
		{"reentrant", Options{Faults: pause, Depth: 7}},
		{"fenced", Options{Faults: pause, Depth: 7}},
		{"redlock", Options{Depth: 8}},
	} {
		t.Run(fmt.Sprintf("%s/%v", tc.name, tc.opts.Faults), func(t *testing.T) {
			t.Parallel()
			in, err := lockimpl.Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			own := ownTokens(t, tc.name)
			want, err := Search(context.Background(), in, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Search(context.Background(), own, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Search(context.Background(), own, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if a.States != want.States || a.Depth != want.Depth || a.Complete != want.Complete {
				t.Errorf("own tokens: %d states to depth %d (complete %v); simulator's tokens: %d to depth %d (complete %v)",
					a.States, a.Depth, a.Complete, want.States, want.Depth, want.Complete)
			}
			if b.States != a.States {
				t.Errorf("two searches with own tokens: %d and %d states", a.States, b.States)
			}
			if got, exp := brokenIDs(a), brokenIDs(want); fmt.Sprint(got) != fmt.Sprint(exp) {
				t.Errorf("own tokens broke %v, simulator's tokens %v", got, exp)
			}
		})
	}
}
