package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/redis/go-redis/v9"
)

// Client is one client process of a run (A, B, C…): its program, its go-redis
// clients (one per logical node), its lock, its business actor, and what
// the invariants read of it (what it believes, the op it is at, its fence).
type Client struct {
	Name string
	Prog Program
	Rdb  []*redis.Client
	// Conn is the server each go-redis client's connection goes to. Its
	// dialer sets it, and go-redis may dial from a goroutine of its own
	// (a probe after a failed dial): atomic.
	Conn []atomic.Int32
	Lock lockimpl.Lock
	Biz  *Actor
	// Spawned counts the actors Env.Go started for it (a watchdog), each
	// counted before its goroutine starts: while none is, the only actor
	// goroutine that sends on its connections is Biz's (the gate's fast
	// path).
	Spawned atomic.Int32
	// Token and count are the last Env.Token handed out and how many: the
	// scheduler's copy, taken from Minted when it handles a message of the
	// client's (TakeToken). Lock code may call Env.Token while the
	// scheduler records an event, from a goroutine woken in lock code.
	Token  string
	Count  int
	Minted Minted
	// Key is the lock's key the client takes (Program.Key, or the setup's).
	Key string
	// Claim is the lock token the client shows the resource (GuardToken):
	// what its last acquire wrote on the lock's key. ClaimField: the key is
	// a hash, and Claim its field (a reentrant lock's owner).
	Claim      string
	ClaimField bool
	// Shares: its lock handle is a read-write lock's read lock
	// (Program.Read with a lockimpl.ReadWriter).
	Shares bool

	Belief  trace.Belief
	Op      trace.Op
	Fence   int64
	Lost    <-chan struct{}
	Paused  bool
	Crashed bool
	// Hung: its business goroutine is stuck since HungAt; its other
	// goroutines (a watchdog) run on.
	Hung   bool
	HungAt time.Duration
	// Reentering: a nested call of its critical section waits for the lock
	// the client itself holds.
	Reentering bool
	// NestedKey: the lock's key was there when the nested call got the lock.
	NestedKey bool
	// Cut: the logical nodes a network partition keeps it from.
	Cut map[int]bool
	// Mute are the nodes whose replies to this client are lost
	// (Client.DropReplies): its commands there run, and it sees a timeout.
	Mute map[int]bool

	// Jitter draws the program's jittered waits (Program.Jitter).
	Jitter *rand.Rand
	// The current wait for the lock: since when, how many attempts, how
	// many commands those sent (every node's, a failed one's too).
	WantSince         time.Duration
	Attempts, AcqCmds int
	// RelCmds: the commands its current release, or nested release, has
	// sent (every node's); a release that sent none found no hold of its
	// own in the lock code.
	RelCmds int

	ReadVal, ReadVer int
	AttemptFrom      int // the first trace event of its current acquire attempt (quorum.go)
}

// BrokenLock stands for a lock whose Maker failed.
type BrokenLock struct{ Err error }

func (b BrokenLock) TryAcquire(context.Context) (bool, error) { return false, b.Err }

func (b BrokenLock) Release(context.Context) error { return b.Err }

// Minted is Env.Token's side of a client's tokens: lock code calls it on
// goroutines of its own, the scheduler reads it in TakeToken.
type Minted struct {
	mu    sync.Mutex
	token string
	count int
}

// Next is Env.Token for the client named name: name#1, name#2, ….
func (m *Minted) Next(name string) func() string {
	return func() string {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.count++
		m.token = fmt.Sprintf("%s#%d", name, m.count)
		return m.token
	}
}

// TakeToken brings the scheduler's copy of c's token up to date. The
// scheduler calls it for each message of c's goroutines, so what a trace
// shows does not depend on when lock code ran between two messages.
func (c *Client) TakeToken() {
	c.Minted.mu.Lock()
	c.Token, c.Count = c.Minted.token, c.Minted.count
	c.Minted.mu.Unlock()
}

// ErrOwnKeyEmbedded is a client's own key on real servers (Setup.ClientKeys):
// the run's ACL user is made for the setup's key alone.
var ErrOwnKeyEmbedded = errors.New("a client with a key of its own runs on embedded servers only")

// RowName is the name of the data a lock's key guards: the stock of product
// 1001 for the default key, otherwise the key without its "lock:"
// (lock:orders guards orders, lock:order:8801 order:8801).
func RowName(key string) string {
	if key == defaultKey {
		return "stock:product:1001"
	}
	return strings.TrimPrefix(key, "lock:")
}
