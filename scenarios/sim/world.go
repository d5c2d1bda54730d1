package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Setup is the fixed part of a scenario: the lock, the servers, the data.
type Setup struct {
	// Key is the lock's key; default "lock:product:1001".
	Key string
	// TTL is the lease; default 30s.
	TTL time.Duration
	// Replica gives a single-instance lock's server a replica that trails
	// it by Lag and can be promoted by Failover. Redlock ignores it: its
	// servers are independent.
	Replica bool
	Lag     time.Duration
	// DownAfter is how long Sentinel waits, once the primary stops
	// answering, before it counts it down and the Sentinels elect a leader
	// that promotes the replica (Sentinel's down-after-milliseconds); the
	// election itself is not timed. Default 30s, Sentinel's own default.
	DownAfter time.Duration
	// Rejoin says the timeline brings a failed primary back as a replica
	// (Timeline.Rejoin). On real servers that would resync — and so wipe —
	// the first server, so such a scenario runs its single-instance cells
	// on embedded servers only.
	Rejoin bool
	// ClientKeys says some client takes a lock of its own (Program.Key):
	// the run's ACL user on a real server is made for Key alone, so such a
	// scenario runs on embedded servers only.
	ClientKeys bool
	// LivenessBound is how long a client may wait for a lock that no live
	// client holds before liveness counts as broken; default 2×TTL.
	LivenessBound time.Duration
	// Horizon ends a run that has not finished by then; default 5 minutes.
	Horizon time.Duration
	// Stock is the protected resource's starting value; default 100.
	Stock int
	// Nodes, when set, runs a multi-node implementation (Redlock) on this
	// many independent servers instead of the number it asks for.
	Nodes int
	// Guard is the resource's own check on every write (none by default):
	// what a database does when the lock lets two writers through.
	Guard Guard
	// Cluster makes each server a Redis Cluster node holding every slot:
	// a command, or a script's declared keys, across hash slots is refused
	// with CROSSSLOT, and a script's command on a key outside its slot
	// fails (slot.go). On real servers it needs a cluster (Target.Cluster).
	Cluster bool
}

// defaultKey is the lock's key when a Setup gives none.
const defaultKey = "lock:product:1001"

// DefaultTTL is the lease when a Setup gives none.
const DefaultTTL = 30 * time.Second

// DefaultDownAfter is Sentinel's wait when a Setup gives none: Sentinel's
// own default for down-after-milliseconds.
const DefaultDownAfter = 30 * time.Second

// WithDefaults is the setup a run uses: s with its defaults filled in.
func (s Setup) WithDefaults() Setup { return s.withDefaults() }

func (s Setup) withDefaults() Setup {
	if s.Key == "" {
		s.Key = defaultKey
	}
	if s.TTL == 0 {
		s.TTL = DefaultTTL
	}
	if s.LivenessBound == 0 {
		s.LivenessBound = 2 * s.TTL
	}
	if s.DownAfter == 0 {
		s.DownAfter = DefaultDownAfter
	}
	if s.Horizon == 0 {
		s.Horizon = 5 * time.Minute
	}
	if s.Stock == 0 {
		s.Stock = 100
	}
	return s
}

// World is one run: servers, clients, the resource, the clock, the trace.
// Only the scheduler goroutine touches it while no actor runs; actors reach
// it through messages.
type World struct {
	setup Setup
	impl  lockimpl.Info

	ch       chan msg
	done     chan struct{} // closed when shutdown ends: no one reads ch
	closing  atomic.Bool
	inflight atomic.Int32 // gated commands inside go-redis: never more than one
	// Flights (see actor): pending ones reached the gate and wait for their
	// place in line; flights says some lock code of this run sends from
	// goroutines of its own; loose, that such a goroutine may be running now.
	pending        []*actor
	flights, loose bool
	// fanRunning counts the calls of Env.Fan that run lock code now: not
	// parked at the gate, not returned.
	fanRunning int
	err        error

	// bub is the synctest bubble an embedded world runs in (nil on real
	// servers); see bubbled.go. inbox holds messages received while time
	// passed, in the order they are handled.
	bub      *bubble.Bubble
	inbox    []msg
	progress atomic.Uint64          // messages handled: a run that makes none stalls
	last     atomic.Pointer[string] // who the scheduler last let go, for a stall
	lastA    atomic.Pointer[actor]  // that actor; nil for the lock's New
	goids    sync.Map               // *actor → its goroutine's id, for a stall
	// onGoroutine is goids the other way round: the actor whose goroutine
	// sends a command (gate.go).
	onGoroutine sync.Map
	wedged      error // set by the caller when the run stalled (see in)
	// wedgedDone: the stalled call's end; aborted tells the scheduler.
	wedgedDone <-chan any
	aborted    atomic.Bool
	// pacing counts the calls into the pacer under way: a live run waiting
	// for its presenter is not stalled (in).
	pacing atomic.Int32
	stall  time.Duration // stallTimeout when the world was built
	id     uint64        // unique in the process (stuck.go)
	// commands reached a server; failed of them got an error other than a
	// nil reply. A run in which every command failed has no verdict.
	commands, failed int
	firstFailed      string
	// lockCalls are the calls of the lock's TryAcquire and Release;
	// lockErrs, those that returned an error other than ErrNotHeld.
	lockCalls, lockErrs int
	firstLockErr        error

	now     time.Duration
	servers []*server
	route   []int // logical node → server serving it
	clients []*client
	actors  []*actor
	queue   []*actor
	running int
	repl    []replEntry
	replSeq int // entries ever queued for replication
	// promoting: the first node's primary has died, and Sentinel promotes
	// its replica at promoteAt (its down-after past the death).
	promoting bool
	promoteAt time.Duration
	// sentinel, on a real run whose Sentinels decide the failover
	// (Target.Sentinels), watches the first node's primary; sentinelSaid
	// holds the kinds of their messages the trace has shown, diedAt when
	// the primary died.
	sentinel     SentinelWatch
	sentinelSaid map[string]bool
	diedAt       time.Duration

	res      resource
	rows     map[string]*resource // the rows of clients' own keys (Program.Key)
	judge    judge
	trace    Trace
	names    renamer // the lock's own tokens' names in the trace (tokens.go)
	pausedAt map[*client]time.Duration
	// deferred: cancellations (msgUngate, msgGiveUp) of clients the run
	// has stopped, handled when they go on (ctxEnded).
	deferred []msg

	real *RealRun // nil on embedded servers

	// pacer paces a live run (WithPacer); ctx is the run's context.
	pacer *Pacer
	ctx   context.Context

	closed bool // close ran: the servers went back to the pool once
}

type server struct {
	name    string
	b       Backend
	up      bool
	role    string
	replica int // index of its replica, -1 for none
	primary int // index of its primary, -1 for none
	lag     time.Duration
	keys    []KeyState // as of the last event
	// readAt is when keys were read, on the wall clock (real servers):
	// how long their TTLs have run down since.
	readAt  time.Time
	ahead   time.Duration // how far its clock has jumped ahead
	latency time.Duration // how late a command reaches it (Timeline.Slow)
	scripts scriptCache   // the scripts the run gave it since it started
}

type client struct {
	name string
	prog Program
	rdb  []*redis.Client
	// conn is the server each go-redis client's connection goes to. Its
	// dialer sets it, and go-redis may dial from a goroutine of its own
	// (a probe after a failed dial): atomic.
	conn []atomic.Int32
	lock lockimpl.Lock
	biz  *actor
	// token and count are the last Env.Token handed out and how many: the
	// scheduler's copy, taken from minted when it handles a message of the
	// client's (takeToken). Lock code may call Env.Token while the
	// scheduler records an event, from a goroutine woken in lock code.
	token  string
	count  int
	minted minted
	// key is the lock's key the client takes (Program.Key, or the setup's).
	key string
	// claim is the lock token the client shows the resource (GuardToken):
	// what its last acquire wrote on the lock's key.
	claim string

	belief  Belief
	op      Op
	fence   int64
	lost    <-chan struct{}
	paused  bool
	crashed bool
	// hung: its business goroutine is stuck since hungAt; its other
	// goroutines (a watchdog) run on.
	hung   bool
	hungAt time.Duration
	// reentering: a nested call of its critical section waits for the lock
	// the client itself holds.
	reentering bool
	// nestedKey: the lock's key was there when the nested call got the lock.
	nestedKey bool
	// cut: the logical nodes a network partition keeps it from.
	cut map[int]bool
	// mute are the nodes whose replies to this client are lost
	// (Client.DropReplies): its commands there run, and it sees a timeout.
	mute map[int]bool

	// jitter draws the program's jittered waits (Program.Jitter).
	jitter *rand.Rand
	// The current wait for the lock: since when, how many attempts, how
	// many commands those sent (every node's, a failed one's too).
	wantSince         time.Duration
	attempts, acqCmds int
	// relCmds: the commands its current release, or nested release, has
	// sent (every node's); a release that sent none found no hold of its
	// own in the lock code.
	relCmds int

	readVal, readVer int
	attemptFrom      int // the first trace event of its current acquire attempt (quorum.go)
}

// newWorld builds a world: on real servers on the caller's goroutine, on
// embedded ones in a bubble of its own, whose clock is the run's virtual
// time (bubbled.go).
func newWorld(ctx context.Context, setup Setup, impl lockimpl.Info, target *Target) (*World, error) {
	if target != nil {
		return buildWorld(ctx, setup, impl, target, nil)
	}
	// The context's Done channel is made on its first use: let that be
	// here, outside the bubble. A channel a bubble makes may be used only
	// in it, and the caller's goroutines wait on this one too (a live run
	// in the TUI selects on it).
	ctx.Done()
	b := bubble.New()
	var w *World
	var err error
	b.Do(func() {
		// A bubble's clock starts at 2000-01-01: lock code that reads
		// time.Now sees what Env.Clock.Now says.
		time.Sleep(epoch.Sub(time.Now()))
		w, err = buildWorld(ctx, setup, impl, nil, b)
	})
	if err != nil {
		_ = b.Close(closeLimit)
		return nil, err
	}
	return w, nil
}

func buildWorld(ctx context.Context, setup Setup, impl lockimpl.Info, target *Target, b *bubble.Bubble) (*World, error) {
	w := &World{setup: setup.withDefaults(), impl: impl, ch: make(chan msg), done: make(chan struct{}),
		pausedAt: map[*client]time.Duration{},
		pacer:    pacerFrom(ctx), ctx: ctx, bub: b, stall: stallFrom(ctx), id: worldIDs.Add(1)}
	s := &w.setup
	w.res = resource{name: rowName(s.Key), value: s.Stock, guard: s.Guard}
	w.judge = newJudge()
	var nodes []*redis.Options
	if target != nil {
		nodes = target.Nodes
		if len(target.Slots) > 0 {
			if impl.Nodes > 1 {
				return nil, fmt.Errorf("%s needs %d independent servers, not a cluster's masters: %w", impl.Name, impl.Nodes, ErrNeedsNodes)
			}
			master := target.NodeFor(target.Prefix + s.Key)
			if master == nil {
				return nil, fmt.Errorf("no master of the cluster serves slot %d of %s", HashSlot(target.Prefix+s.Key), target.Prefix+s.Key)
			}
			nodes = []*redis.Options{master}
		}
		if impl.Nodes > len(nodes) {
			return nil, fmt.Errorf("%s needs %d servers, %d given: %w", impl.Name, impl.Nodes, len(nodes), ErrNeedsNodes)
		}
		if s.Replica && impl.Nodes == 1 && target.Replica == nil {
			return nil, ErrNeedsReplica
		}
		if s.Rejoin && impl.Nodes == 1 {
			return nil, ErrEmbeddedOnly
		}
		if s.ClientKeys {
			return nil, ErrOwnKeyEmbedded
		}
		if s.Cluster && len(target.Slots) == 0 {
			return nil, ErrNeedsCluster
		}
		if target.NewBackend == nil {
			return nil, ErrNoBackend
		}
		// Sentinel's detection and election take seconds of real time.
		second := target.RunSecond(*s, impl.Nodes)
		w.real = &RealRun{Target: target, Ctx: ctx, f: float64(second) / float64(time.Second)}
		s.Key = target.Prefix + s.Key
		w.real.name(s.Key)
	}
	newBackend := func(i int) Backend {
		if w.real == nil {
			return w.newMem()
		}
		if i < 0 {
			return target.NewBackend(w.real, target.Replica)
		}
		return target.NewBackend(w.real, nodes[i])
	}
	add := func(name, role string, b Backend) int {
		w.servers = append(w.servers, &server{name: name, b: b, up: true, role: role, replica: -1, primary: -1})
		return len(w.servers) - 1
	}
	if s.Nodes > 0 && impl.Nodes > 1 {
		impl.Nodes = s.Nodes
		w.impl = impl
	}
	if impl.Nodes > 1 {
		for i := range impl.Nodes {
			w.route = append(w.route, add(fmt.Sprintf("redis-%d", i+1), "node", newBackend(i)))
		}
	} else {
		role := "primary"
		if s.Cluster {
			role = "cluster master" // of the slot of the lock's key
		}
		p := add("redis-1", role, newBackend(0))
		w.route = []int{p}
		if s.Replica {
			r := add("redis-2", "replica", newBackend(-1))
			w.servers[p].replica = r
			w.servers[r].primary = p
			w.servers[r].lag = s.Lag
		}
	}
	w.trace = Trace{Schema: TraceSchema, Impl: impl.Name, Key: s.Key, TTL: s.TTL}
	for _, srv := range w.servers {
		w.trace.Servers = append(w.trace.Servers, srv.name)
		if w.real != nil {
			w.trace.Addrs = append(w.trace.Addrs, srv.b.Addr())
		}
	}
	for _, srv := range w.servers {
		if err := srv.b.Guard(s.Key); err != nil {
			w.stop()
			w.closeServers(true) // no client has connected yet
			return nil, w.runErr(fmt.Errorf("guard %s: %w", srv.name, err))
		}
	}
	if w.real != nil {
		if err := w.startReal(); err != nil {
			w.stop()
			w.closeServers(true) // no client has connected yet
			return nil, w.runErr(err)
		}
	}
	return w, nil
}

// startReal checks that the run starts clean, has each replica follow its
// primary, and starts the clock.
func (w *World) startReal() error {
	for _, srv := range w.servers {
		keys, err := srv.b.Read(0)
		if err != nil {
			return fmt.Errorf("read %s: %w", srv.b.Addr(), err)
		}
		if len(keys) > 0 {
			return fmt.Errorf("%s already has keys under %s", srv.b.Addr(), w.real.Target.Prefix)
		}
	}
	for _, srv := range w.servers {
		if srv.primary < 0 {
			continue
		}
		f, ok := srv.b.(Follower)
		if !ok {
			return fmt.Errorf("%s cannot replicate: its backend is not a Follower", srv.b.Addr())
		}
		if err := f.Follow(w.servers[srv.primary].b, srv.lag); err != nil {
			return err
		}
	}
	if err := w.startSentinels(); err != nil {
		return err
	}
	w.real.start = time.Now()
	return nil
}

// addClient creates a client process with its go-redis clients, its lock
// handle and its business goroutine, which starts at p.Start.
func (w *World) addClient(name string, p Program) *client {
	c := &client{name: name, prog: p.withDefaults(), belief: BeliefIdle, op: OpStart}
	if p.Jitter {
		c.jitter = jitterSource(name)
	}
	c.conn = make([]atomic.Int32, len(w.route))
	for i := range w.route {
		c.rdb = append(c.rdb, w.newRedisClient(c, i))
		c.conn[i].Store(int32(w.route[i]))
	}
	ttl := w.setup.TTL
	if p.Lease > 0 {
		ttl = p.Lease
	}
	c.key = w.clientKey(p)
	c.lock = w.newLock(lockimpl.Env{
		Nodes:    c.rdb,
		Key:      c.key,
		TTL:      w.toReal(ttl),
		Lease:    w.toReal(p.Lease),
		Clock:    vclock{w},
		Token:    c.minted.next(c.name),
		Go:       w.spawn,
		Fan:      w.fan,
		Replicas: w.replicas(),
	})
	w.clients = append(w.clients, c)
	w.trace.Clients = append(w.trace.Clients, name)

	a := w.newActor(c, name, false)
	c.biz = a
	a.id = len(w.actors)
	w.actors = append(w.actors, a)
	ctx := withActor(context.Background(), a)
	go w.runActor(a, func() { w.runProgram(ctx, a) })
	if p.Start > w.now {
		a.state, a.deadline = stateSleeping, p.Start
	} else {
		w.enqueue(a)
	}
	return c
}

// replicas is how many replicas a single-instance lock's server has.
func (w *World) replicas() int {
	if len(w.route) == 1 && w.servers[w.route[0]].replica >= 0 {
		return 1
	}
	return 0
}

// runActor is the body of an actor's goroutine: it waits for its turn, runs
// fn, and reports its exit. A panic in fn (lock code that panics) ends the
// goroutine and fails the run with the panic, naming the actor, instead of
// taking the whole process down; the panic of a goroutine the lock started
// on its own, not through Env.Go, cannot be caught this way. The gate knows
// an actor's own commands by this function's frame at the bottom of the
// stack (goroutineRoot).
//
//go:noinline
func (w *World) runActor(a *actor, fn func()) {
	w.labelActor(a)
	var crash error
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Errorf("%s: the lock implementation %s panicked: %v", a.name, w.impl.Name, r)
			}
		}()
		if err := a.wait(); err == nil {
			fn()
		}
	}()
	w.send(msg{a: a, kind: msgExit, err: crash})
}

// newLock makes a client's lock handle with the implementation's Maker. A
// Maker that panics, returns nil or does not return within the stall
// timeout fails the run, and the client gets a handle whose every call
// returns that error.
func (w *World) newLock(env lockimpl.Env) lockimpl.Lock {
	type made struct {
		l   lockimpl.Lock
		err error
	}
	ch := make(chan made, 1)
	if w.bub != nil {
		name := "the lock implementation " + w.impl.Name + "'s New"
		w.last.Store(&name)
		w.lastA.Store(nil)
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- made{err: fmt.Errorf("the lock implementation %s panicked in New: %v", w.impl.Name, r)}
			}
		}()
		l := w.impl.New(env)
		if l == nil {
			ch <- made{err: fmt.Errorf("the lock implementation %s: New returned no lock", w.impl.Name)}
			return
		}
		ch <- made{l: l}
	}()
	timer := time.NewTimer(w.stall)
	defer timer.Stop()
	var m made
	select {
	case m = <-ch:
	case <-timer.C:
		m.err = fmt.Errorf("the lock implementation %s: New did not return within %s", w.impl.Name, w.stall)
	}
	if m.err != nil {
		w.fail(m.err)
		return brokenLock{m.err}
	}
	return m.l
}

// brokenLock stands for a lock whose Maker failed.
type brokenLock struct{ err error }

func (b brokenLock) TryAcquire(context.Context) (bool, error) { return false, b.err }
func (b brokenLock) Release(context.Context) error            { return b.err }

func (w *World) newActor(c *client, name string, bg bool) *actor {
	return &actor{name: name, client: c, bg: bg, resume: make(chan error, 1),
		state: stateParked, park: parkStart}
}

func (w *World) fail(err error) {
	if w.err == nil {
		// An interrupted real run says so, whatever failed under it (a
		// REPLICAOF on a connection the interruption cut, say).
		w.err = w.runErr(err)
	}
}

// --- time ---------------------------------------------------------------

// runUntil moves time to target, letting every actor run whenever it can. With
// untilQuiet it stops early once every client has finished or crashed. A
// cancelled context stops it too, on embedded servers as on real ones.
//
// Time moves to the next moment something of the engine's is due (a sleep,
// an expiry, a replica catching up) or to target, and stops earlier where
// lock code that a timer of its own woke sends something (passTo). With
// untilQuiet and nothing due, it moves only for such lock code: when none
// wakes by the horizon, a client blocked in lock code is stuck for good.
func (w *World) runUntil(target time.Duration, untilQuiet bool) {
	for w.err == nil {
		if err := w.ctx.Err(); err != nil {
			w.fail(err)
			break
		}
		w.wakeDue()
		w.settle()
		w.tick()
		if w.runnableNow() {
			continue // a WAIT ended: its actor goes on before time moves
		}
		if untilQuiet && w.quiet() {
			return
		}
		next, ok := w.nextDeadline()
		if ok && next <= target {
			w.passTo(next)
			continue
		}
		if untilQuiet {
			if w.awaitLib(target) {
				continue
			}
			break
		}
		if target <= w.now {
			break
		}
		if w.passTo(target) {
			w.tick()
			break
		}
	}
}

// awaitLib lets the bubble's clock run until horizon for an actor blocked in
// lock code with nothing else due: a timer of the lock's own may wake it
// (then its message is in the inbox, the run's time moves there, and
// awaitLib reports true: the run goes on). If none does by the horizon,
// the lesson is over; the actor is stuck only if no timer wakes it after
// the horizon either (wakesLater): a watchdog's ticker or a retry's sleep
// due just past the lesson's end is lock code the lesson ended, not lock
// code blocked for good.
func (w *World) awaitLib(horizon time.Duration) bool {
	a := w.libBlocked()
	if a != nil && w.real != nil {
		return w.awaitLibReal(a, horizon)
	}
	if a == nil || w.bub == nil {
		return len(w.inbox) > 0
	}
	if reached := w.passTime(horizon); len(w.inbox) > 0 {
		w.advance(reached)
		return true
	}
	if !w.wakesLater() {
		w.stuck(a)
	}
	return false
}

// runnableNow says whether some actor in line may move now.
func (w *World) runnableNow() bool {
	for _, a := range w.queue {
		if w.runnable(a) {
			return true
		}
	}
	return false
}

// quiet says whether every client has finished or crashed, and every
// command on its way to a server has arrived (onTheWire).
func (w *World) quiet() bool {
	for _, c := range w.clients {
		if c.biz.state != stateDone && !c.crashed {
			return false
		}
	}
	for _, a := range w.actors {
		if onTheWire(a) && a.state != stateDone {
			return false
		}
	}
	return true
}

// nextDeadline is the earliest future moment something happens by itself:
// a sleeper wakes, a key expires, a replica catches up, Sentinel promotes a
// replica, the liveness bound runs out.
func (w *World) nextDeadline() (time.Duration, bool) {
	best, ok := w.nextSleeper()
	consider := func(t time.Duration) {
		if t > w.now && (!ok || t < best) {
			best, ok = t, true
		}
	}
	for _, srv := range w.servers {
		if !srv.up {
			continue
		}
		for _, k := range srv.keys {
			if k.TTL > 0 {
				consider(w.now + k.TTL)
			}
		}
	}
	for _, e := range w.repl {
		consider(e.due)
	}
	switch {
	case w.promoting && w.sentinel != nil:
		consider(w.now + sentinelPoll) // the Sentinels say when
	case w.promoting:
		consider(w.promoteAt)
	}
	if d, on := w.judge.livenessDeadline(w.setup.LivenessBound); on {
		consider(d)
	}
	return best, ok
}

// advance sets the clock to t: keys whose TTL runs out expire, each with an
// event.
func (w *World) advance(t time.Duration) {
	delta := t - w.now
	if delta <= 0 {
		return
	}
	if w.real != nil {
		w.waitUntil(t)
	}
	w.now = t
	type expiry struct {
		srv string
		key KeyState
	}
	var expired []expiry
	var replicated []string
	for _, srv := range w.servers {
		if !srv.up {
			continue
		}
		srv.b.Advance(t, delta)
		before := srv.keys
		srv.keys = w.readKeys(srv, before)
		for _, k := range before {
			if _, still := findKey(srv.keys, k.Key); !still && k.TTL > 0 && k.TTL <= delta {
				expired = append(expired, expiry{srv.name, k})
			}
		}
		if w.real != nil && srv.primary >= 0 && !sameKeys(before, srv.keys) {
			// A real replica changes when the relay delivers.
			replicated = append(replicated, srv.name)
		}
	}
	for _, x := range expired {
		w.emit(Event{Kind: KindExpire, Server: x.srv, Text: textExpired(x.key, x.srv),
			Short: Text{EN: "expired", ZH: "过期"}})
	}
	for _, name := range replicated {
		w.emit(Event{Kind: KindReplicate, Server: name, Text: textReplicatedReal(name),
			Short: Text{EN: "replicated", ZH: "已复制"}})
	}
	w.drainSentinels()
	if w.promoting && w.sentinel == nil && w.now >= w.promoteAt {
		w.promote()
	}
}

// tick handles what is due now: replication and the liveness bound.
func (w *World) tick() {
	w.applyReplication()
	w.checkWaits()
	w.observe(observation{kind: obsInstant})
}

// --- servers --------------------------------------------------------------

// readKeys reads a server's keys, keeping each key's writer from prev. A
// key or value that has not changed since prev is prev's string, so that
// every snapshot shares one copy of it (a real server's reading is a new
// one each time). A server that cannot be read stops the run.
func (w *World) readKeys(srv *server, prev []KeyState) []KeyState {
	if !srv.up {
		return nil
	}
	if w.real != nil {
		srv.readAt = time.Now()
	}
	keys, err := srv.b.Read(w.now)
	if err != nil {
		w.fail(w.runErr(fmt.Errorf("read %s: %w", srv.name, err)))
		return prev
	}
	for i := range keys {
		if old, ok := findKey(prev, keys[i].Key); ok {
			keys[i].Key, keys[i].Writer = old.Key, old.Writer
			if keys[i].Value == old.Value {
				keys[i].Value = old.Value
			}
		}
	}
	return keys
}

func findKey(keys []KeyState, k string) (KeyState, bool) {
	for _, ks := range keys {
		if ks.Key == k {
			return ks, true
		}
	}
	return KeyState{}, false
}

// --- events ---------------------------------------------------------------

// emit appends an event with a snapshot of the world, then judges the
// invariants that look at beliefs.
func (w *World) emit(e Event) {
	w.record(e)
	if e.Kind != KindViolation && e.Kind != KindNarration {
		w.observe(observation{kind: obsEvent})
	}
}

func (w *World) record(e Event) int {
	if r := w.real; r != nil && !r.start.IsZero() {
		late := time.Since(r.start) - time.Duration(float64(w.now)*r.f)
		if len(w.trace.Events) == 0 || late < r.early {
			r.early = late
		}
		r.late = max(r.late, late)
		w.trace.Drift = r.late - r.early
	}
	e.Step = len(w.trace.Events)
	e.T = w.now
	e.Snap = w.snapshot()
	w.canonEvent(&e)
	w.trace.Events = append(w.trace.Events, e)
	if w.pacer != nil && w.pacer.Event != nil {
		header := w.trace
		header.Events = nil
		w.paced(func() { w.pacer.Event(header, e) })
	}
	return e.Step
}

func (w *World) snapshot() Snapshot {
	var s Snapshot
	for _, srv := range w.servers {
		st := ServerState{Name: srv.name, Role: srv.role, Up: srv.up,
			Keys: slices.Clone(srv.keys), ClockAhead: srv.ahead}
		if srv.primary >= 0 {
			st.ReplicaOf = w.servers[srv.primary].name
			st.Lag = srv.lag
			for _, e := range w.repl {
				if e.replica == w.indexOf(srv) {
					st.Pending++
				}
			}
			if f, ok := srv.b.(Follower); ok {
				st.Pending = f.Pending()
			}
		}
		s.Servers = append(s.Servers, st)
	}
	for _, c := range w.clients {
		cs := ClientState{Name: c.name, Belief: c.belief, Op: c.op, Token: c.token,
			Fence: c.fence, Paused: c.paused, Crashed: c.crashed, Held: c.biz.held,
			Hung: c.hung}
		s.Clients = append(s.Clients, cs)
	}
	s.Resource = w.res.state()
	return s
}

func (w *World) indexOf(srv *server) int { return slices.Index(w.servers, srv) }

// close stops every goroutine and server of the run, and ends its bubble.
// On real servers it deletes the run's keys and points the replica back at
// its primary.
func (w *World) close() {
	if w.closed {
		return
	}
	w.closed = true
	if w.wedged != nil {
		// The stalled call may still come back: the run is closed then.
		go func() {
			<-w.wedgedDone
			w.bub.Do(w.stop)
			w.closeServers(w.bub.Close(closeLimit) == nil)
		}()
		return
	}
	w.in(w.stop)
	clean := true
	if w.bub != nil {
		// Goroutines left blocked for good (lock code that never returned)
		// are the lock's to answer for, and the run has said so.
		clean = w.bub.Close(closeLimit) == nil
	}
	w.closeServers(clean)
}

// closeServers closes the run's servers once every goroutine of the run
// has ended: an embedded server goes back to the pool for another world
// (another bubble) only then. After a run that left goroutines behind, an
// embedded server is dropped untouched: its connections may still be
// theirs.
func (w *World) closeServers(clean bool) {
	for _, srv := range w.servers {
		if _, embedded := srv.b.(*memBackend); embedded && !clean {
			continue
		}
		srv.b.Close()
	}
}

// closeLimit bounds how long closing a world waits for its goroutines.
const closeLimit = 2 * time.Second

// stop is close on the scheduler's goroutine.
func (w *World) stop() {
	err := w.err
	w.shutdown()
	for _, c := range w.clients {
		for _, rc := range c.rdb {
			_ = rc.Close()
		}
	}
	if w.real != nil {
		err = errors.Join(err, w.closeReal())
	}
	w.err = err
	w.settleTimers()
}

// closeReal has every server remove the run's keys, all at once; each
// bounds its own cleanup (see Backend.Cleanup). What they could not do is
// in the error, server by server.
func (w *World) closeReal() error {
	var sentinelErr error
	if w.sentinel != nil {
		// Before the replica is pointed back at the primary: a Sentinel
		// that still watched would take it for a misconfigured master.
		sentinelErr = w.sentinel.Close()
	}
	errs := make([]error, len(w.servers), len(w.servers)+1)
	var wg sync.WaitGroup
	for i, srv := range w.servers {
		wg.Go(func() { errs[i] = srv.b.Cleanup(srv.keys) })
	}
	wg.Wait()
	return errors.Join(append(errs, sentinelErr)...)
}

func sameKeys(a, b []KeyState) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}

// minted is Env.Token's side of a client's tokens: lock code calls it on
// goroutines of its own, the scheduler reads it in takeToken.
type minted struct {
	mu    sync.Mutex
	token string
	count int
}

// next is Env.Token for the client named name: name#1, name#2, ….
func (m *minted) next(name string) func() string {
	return func() string {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.count++
		m.token = fmt.Sprintf("%s#%d", name, m.count)
		return m.token
	}
}

// takeToken brings the scheduler's copy of c's token up to date. The
// scheduler calls it for each message of c's goroutines, so what a trace
// shows does not depend on when lock code ran between two messages.
func (c *client) takeToken() {
	c.minted.mu.Lock()
	c.token, c.count = c.minted.token, c.minted.count
	c.minted.mu.Unlock()
}
