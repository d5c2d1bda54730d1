package lockimpl_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

func validityOf(t *testing.T, h *handle) time.Duration {
	t.Helper()
	v, ok := h.Lock.(interface{ Validity() time.Duration })
	if !ok {
		t.Fatalf("%T has no Validity", h.Lock)
	}
	return v.Validity()
}

// redlockDrift is the clock-drift allowance Redlock subtracts: 1% of the TTL
// plus 2ms.
const redlockDrift = testTTL/100 + 2*time.Millisecond

func TestRedlockMajority(t *testing.T) {
	// Redlock holds the lock only with a majority (N/2+1 = 3 of 5) of
	// independent servers. When it loses, it deletes the keys it did set
	// (a partial acquire must not block the others) and leaves B's alone.
	tests := []struct {
		name  string
		taken []int // nodes where B already holds the lock
		want  bool
	}{
		{"all free", nil, true},
		{"1 of 5 taken", []int{2}, true},
		{"2 of 5 taken", []int{0, 3}, true},
		{"3 of 5 taken", []int{0, 2, 4}, false},
		{"4 of 5 taken", []int{0, 1, 2, 3}, false},
		{"all taken", []int{0, 1, 2, 3, 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newCluster(t, lockimpl.RedlockNodes)
			a := cl.handle(t, "redlock", "A")
			for _, i := range tt.taken {
				plantOther(t, "redlock", cl.servers[i], "B#1")
			}

			ok, err := a.TryAcquire(t.Context())
			if err != nil {
				t.Fatalf("TryAcquire: %v", err)
			}
			if ok != tt.want {
				t.Fatalf("TryAcquire = %v, want %v", ok, tt.want)
			}
			for i, m := range cl.servers {
				switch {
				case slices.Contains(tt.taken, i):
					if got, ttl := holderOf(t, m), m.TTL(testKey); got != "B#1" || ttl != 20*time.Second {
						t.Errorf("node %d: holder %q TTL %v, want B#1 20s untouched", i, got, ttl)
					}
				case ok:
					if got := holderOf(t, m); got != "A#1" {
						t.Errorf("node %d: holder %q, want A#1", i, got)
					}
				default:
					if m.Exists(testKey) {
						t.Errorf("node %d: partial key %q left behind after a failed acquire", i, holderOf(t, m))
					}
				}
			}
			if !ok {
				if v := validityOf(t, a); v != 0 {
					t.Errorf("Validity after a failed acquire = %v, want 0", v)
				}
				return
			}
			mustRelease(t, a)
			for i, m := range cl.servers {
				if slices.Contains(tt.taken, i) {
					if got := holderOf(t, m); got != "B#1" {
						t.Errorf("node %d: A's Release touched B's key (now %q)", i, got)
					}
				} else if m.Exists(testKey) {
					t.Errorf("node %d: A's key left after Release", i)
				}
			}
		})
	}
}

// A failed acquire runs the release script on every node, as the Redlock
// spec says: also on those that did not answer OK. A node that answered nil
// may hold this client's own key from an earlier attempt (its token is kept
// across attempts); left there, it would block everyone until it expires.
func TestRedlockFailedAcquireReleasesEveryNode(t *testing.T) {
	cl := newCluster(t, lockimpl.RedlockNodes)
	a := cl.handle(t, "redlock", "A")
	for _, i := range []int{0, 2, 4} {
		plantOther(t, "redlock", cl.servers[i], "B#1")
	}
	plantOther(t, "redlock", cl.servers[1], "A#1") // A's own, left from before
	ok, err := a.TryAcquire(t.Context())
	if err != nil || ok {
		t.Fatalf("TryAcquire = %v, %v; want false (1 of 5)", ok, err)
	}
	if cl.servers[1].Exists(testKey) {
		t.Errorf("node 1 still holds A's own key %q after the failed acquire", holderOf(t, cl.servers[1]))
	}
	for _, i := range []int{0, 2, 4} {
		if got := holderOf(t, cl.servers[i]); got != "B#1" {
			t.Errorf("node %d: %q, want B#1 untouched", i, got)
		}
	}
}

func TestRedlockUnreachableNodes(t *testing.T) {
	// A node that is down counts as a "no", not as an error: the majority
	// decides. Two of five down still leaves a lock; three down does not.
	tests := []struct {
		name string
		down []int
		want bool
	}{
		{"1 down", []int{0}, true},
		{"2 down", []int{1, 4}, true},
		{"3 down", []int{0, 2, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newCluster(t, lockimpl.RedlockNodes)
			cl.failFast = true
			a := cl.handle(t, "redlock", "A")
			b := cl.handle(t, "redlock", "B")
			for _, i := range tt.down {
				cl.servers[i].Close()
			}

			ok, err := a.TryAcquire(t.Context())
			if err != nil {
				t.Fatalf("TryAcquire with nodes down = error %v, want a plain answer", err)
			}
			if ok != tt.want {
				t.Fatalf("TryAcquire = %v, want %v", ok, tt.want)
			}
			for i, m := range cl.servers {
				if slices.Contains(tt.down, i) {
					continue
				}
				want := ""
				if ok {
					want = "A#1"
				}
				if got := holderOf(t, m); got != want {
					t.Errorf("node %d: holder %q, want %q", i, got, want)
				}
			}
			if !ok {
				return
			}
			mustNotAcquire(t, b)
			// Release reaches the live nodes and tolerates the dead ones.
			mustRelease(t, a)
			for i, m := range cl.servers {
				if !slices.Contains(tt.down, i) && m.Exists(testKey) {
					t.Errorf("node %d: key left after Release", i)
				}
			}
		})
	}
}

func TestRedlockReleaseAllNodesDown(t *testing.T) {
	// When no node can be reached Release must report the failure, not
	// pretend success or claim the lock was someone else's.
	cl := newCluster(t, lockimpl.RedlockNodes)
	cl.failFast = true
	a := cl.handle(t, "redlock", "A")
	mustAcquire(t, a)
	for _, m := range cl.servers {
		m.Close()
	}
	err := a.Release(t.Context())
	if err == nil || errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("Release with every node down = %v, want a connection error", err)
	}
}

func TestRedlockValidity(t *testing.T) {
	// validity = TTL − time spent acquiring − drift. With a clock that does
	// not move, only the drift allowance is taken off.
	cl := newCluster(t, lockimpl.RedlockNodes)
	a := cl.handle(t, "redlock", "A")
	mustAcquire(t, a)
	if got, want := validityOf(t, a), testTTL-redlockDrift; got != want {
		t.Errorf("Validity = %v, want %v", got, want)
	}
	mustRelease(t, a)
	if got := validityOf(t, a); got != 0 {
		t.Errorf("Validity after Release = %v, want 0", got)
	}
}

// steppingClock moves forward by step every time Now is read: acquiring
// across five nodes "takes" 2 steps of time.
type steppingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *steppingClock) Sleep(ctx context.Context, d time.Duration) error {
	panic("redlock does not sleep")
}

func TestRedlockSlowAcquire(t *testing.T) {
	// A majority won too slowly is no lock: when acquiring ate the TTL (minus
	// drift), the keys would expire about as soon as they were set, so
	// Redlock gives up and deletes them.
	tests := []struct {
		name    string
		elapsed time.Duration
		want    bool
	}{
		{"fast", time.Second, true},
		{"just in time", testTTL - redlockDrift - time.Millisecond, true},
		{"validity used up", testTTL - redlockDrift, false},
		{"slower than the TTL", 2 * testTTL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newCluster(t, lockimpl.RedlockNodes)
			a := cl.handle(t, "redlock", "A")
			clock := &steppingClock{step: tt.elapsed}
			a.env.Clock = clock
			a.Lock = lockimpl.NewRedlock(a.env)

			ok, err := a.TryAcquire(t.Context())
			if err != nil {
				t.Fatalf("TryAcquire: %v", err)
			}
			if ok != tt.want {
				t.Fatalf("TryAcquire = %v, want %v (elapsed %v)", ok, tt.want, tt.elapsed)
			}
			if ok {
				if got, want := validityOf(t, a), testTTL-tt.elapsed-redlockDrift; got != want {
					t.Errorf("Validity = %v, want %v", got, want)
				}
				mustRelease(t, a)
				return
			}
			for i, m := range cl.servers {
				if m.Exists(testKey) {
					t.Errorf("node %d: key %q left after a too-slow acquire", i, holderOf(t, m))
				}
			}
		})
	}
}

// meetHook holds node 0's commands until the last node has received one:
// a lock that asks its nodes one after another never gets there, and node
// 0's command gives up when giveUp is closed. The handle runs Redlock in a
// bubble, whose clock stands still while a command waits on this hook's
// channels (made outside it): giveUp is on the wall clock.
type meetHook struct {
	last   bool
	met    chan struct{}
	once   *sync.Once
	giveUp <-chan struct{}
}

func (h meetHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h meetHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h meetHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.last {
			h.once.Do(func() { close(h.met) })
			return next(ctx, cmd)
		}
		select {
		case <-h.met:
			return next(ctx, cmd)
		default:
		}
		select {
		case <-h.met:
			return next(ctx, cmd)
		case <-h.giveUp:
			return errors.New("node 0's command waited 2s for the last node's")
		}
	}
}

func TestRedlockAsksEveryNodeAtOnce(t *testing.T) {
	// The acquire, its undo and the release each send their commands to
	// every node at once: node 0's command is still waiting when the last
	// node's goes out.
	for _, name := range []string{"redlock", "redlock-no-validity"} {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, lockimpl.RedlockNodes)
			a := cl.handle(t, name, "A")
			met, once := make(chan struct{}), &sync.Once{}
			wall, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			a.env.Nodes[0].AddHook(meetHook{met: met, once: once, giveUp: wall.Done()})
			a.env.Nodes[len(a.env.Nodes)-1].AddHook(meetHook{last: true, met: met, once: once})

			ok, err := a.TryAcquire(t.Context())
			if err != nil || !ok {
				t.Fatalf("TryAcquire = %v, %v; want true, nil", ok, err)
			}
			if !cl.servers[0].Exists(testKey) {
				t.Fatal("node 0 has no key: its SET did not go through")
			}
			mustRelease(t, a)
			for i, m := range cl.servers {
				if m.Exists(testKey) {
					t.Errorf("node %d: key left after the release", i)
				}
			}
		})
	}
}
