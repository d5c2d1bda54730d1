package lockimpl_test

import (
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

var (
	_ lockimpl.ReadWriter = (*lockimpl.RedissonRW)(nil)
	_ lockimpl.ReadWriter = (*lockimpl.RWUnchecked)(nil)
)

// reader is client prefix's read lock of implementation name.
func (cl *cluster) reader(t *testing.T, name, prefix string) *handle {
	t.Helper()
	h := cl.handle(t, name, prefix)
	h.Lock = h.Lock.(lockimpl.ReadWriter).ReadLock()
	return h
}

// readersInside is implementation name's readers A and B, both holding the
// read lock, and its writer W, on a server of their own.
func readersInside(t *testing.T, name string) (cl *cluster, a, b, w *handle) {
	t.Helper()
	cl = newCluster(t, 1)
	a, b, w = cl.reader(t, name, "A"), cl.reader(t, name, "B"), cl.handle(t, name, "W")
	mustAcquire(t, a)
	mustAcquire(t, b)
	return cl, a, b, w
}

// Many readers or one writer: readers share the lock, a writer waits for
// all of them, and a reader waits for the writer.
func TestReadWriteLockSharesReadsAndExcludesWrites(t *testing.T) {
	for _, name := range []string{"redisson-rw", "rw-unchecked"} {
		t.Run(name, func(t *testing.T) {
			cl, a, b, w := readersInside(t, name)
			mustNotAcquire(t, w)
			if got := cl.servers[0].HGet(testKey, "mode"); got != "read" {
				t.Errorf("mode = %q, want read", got)
			}
			mustRelease(t, a)
			// The unchecked release took B's hold with A's: B finds none.
			if err := b.Release(t.Context()); (err == lockimpl.ErrNotHeld) != (name == "rw-unchecked") {
				t.Errorf("B's release = %v", err)
			}
			mustAcquire(t, w)
			mustNotAcquire(t, cl.reader(t, name, "C"))
			mustAcquire(t, w) // the write lock is reentrant
			mustRelease(t, w)
			mustRelease(t, w)
			if cl.servers[0].Exists(testKey) {
				t.Error("the lock is still there after the writer's last release")
			}
		})
	}
}

// The first reader to leave: Redisson's release keeps the lock for the
// reader still inside, and a writer still waits; the unchecked release
// deletes the whole hash, and the writer gets in beside the reader.
func TestFirstReaderLeaving(t *testing.T) {
	for name, writerGetsIn := range map[string]bool{"redisson-rw": false, "rw-unchecked": true} {
		t.Run(name, func(t *testing.T) {
			cl, a, b, w := readersInside(t, name)
			mustRelease(t, a)
			ok, err := w.TryAcquire(t.Context())
			if err != nil || ok != writerGetsIn {
				t.Fatalf("writer's acquire after A left, B still reading = %v, %v; want %v", ok, err, writerGetsIn)
			}
			if !writerGetsIn && cl.servers[0].TTL(testKey) <= 0 {
				t.Errorf("TTL = %v after A left: want B's hold's TTL", cl.servers[0].TTL(testKey))
			}
			_ = b.Release(t.Context()) // stops its watchdog
			if writerGetsIn {
				mustRelease(t, w)
			}
		})
	}
}

// Each read hold has a key of its own with the lease's TTL; when a reader
// leaves, the lock lives as long as the longest other hold and no longer:
// a reader whose hold ran out (it crashed, and nothing renewed it) does not
// keep the lock.
func TestReadHoldsKeepTheirOwnTTL(t *testing.T) {
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.reader(t, "redisson-rw", "A")
	a.env.Lease = testTTL // no watchdog: A is the reader that crashed
	a.env.TTL = testTTL
	a.Lock = lockimpl.NewRedissonRW(a.env).(lockimpl.ReadWriter).ReadLock()
	mustAcquire(t, a)
	holdKey := "{" + testKey + "}:A#1:rwlock_timeout:1"
	if got := m.TTL(holdKey); got != testTTL {
		t.Fatalf("A's hold key %s TTL = %v, want %v", holdKey, got, testTTL)
	}
	m.FastForward(testTTL / 2)
	b := cl.reader(t, "redisson-rw", "B")
	b.env.Lease, b.env.TTL = testTTL, testTTL
	b.Lock = lockimpl.NewRedissonRW(b.env).(lockimpl.ReadWriter).ReadLock()
	mustAcquire(t, b)
	mustRelease(t, b)
	if got := m.TTL(testKey); got != testTTL/2 {
		t.Errorf("after B left, the lock's TTL = %v, want A's hold's %v", got, testTTL/2)
	}
	m.FastForward(testTTL/2 + time.Millisecond)
	if m.Exists(testKey) {
		t.Error("the lock outlived A's hold")
	}
}

// A reader's watchdog renews the hash and every read hold's key, so a
// reader that outlasts the lease is not dropped when another leaves.
func TestReaderWatchdogRenewsEveryHold(t *testing.T) {
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a, b := cl.reader(t, "redisson-rw", "A"), cl.reader(t, "redisson-rw", "B")
	mustAcquire(t, a)
	mustAcquire(t, b)
	a.clock.WaitSleeping(t, 1)
	m.FastForward(testTTL / 3)
	a.clock.Advance(testTTL / 3)
	a.clock.WaitSleeping(t, 1)
	for _, k := range []string{testKey, "{" + testKey + "}:A#1:rwlock_timeout:1", "{" + testKey + "}:B#1:rwlock_timeout:1"} {
		if got := m.TTL(k); got != testTTL {
			t.Errorf("TTL of %s after A's renewal = %v, want %v", k, got, testTTL)
		}
	}
	mustRelease(t, b)
	mustRelease(t, a)
}
