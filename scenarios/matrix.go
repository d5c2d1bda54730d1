package scenarios

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
)

// Invariant ids, short for the matrix below.
const (
	mutex     = sim.InvMutex
	ownership = sim.InvOwnership
	liveness  = sim.InvLiveness
	resource  = sim.InvResource
)

// expected is the lesson: for every failure mode and implementation, the
// invariants that break. A missing implementation means none break.
var expected = map[string]map[string][]string{
	// A lock with no lease outlives a crashed holder; so does one whose lease
	// is set by a second command that never comes.
	"setnx-no-ex": {
		"setnx":        {liveness},
		"setnx-expire": {liveness},
	},
	// Work outlasts the TTL: every lease without renewal lets B in while A
	// works (mutex) and A's late write loses B's update (resource); a
	// constant value also lets A's DEL remove B's lock (ownership). No lease
	// at all (setnx) or a watchdog keeps A's hold.
	"del-other": {
		"setnx-expire":  {mutex, ownership, resource},
		"set-nx-ex":     {mutex, ownership, resource},
		"uuid-get-del":  {mutex, resource},
		"uuid-lua":      {mutex, resource},
		"redlock":       {mutex, resource},
		"reentrant":     {mutex, resource},
		"uuid-lua-wait": {mutex, resource},
	},
	// Only a release that checks and deletes in two commands has a "between".
	"get-then-del": {
		"uuid-get-del": {mutex, ownership, resource},
	},
	// Asynchronous replication loses the lock for every single-instance
	// implementation — the fencing counter too, so a token is handed out
	// twice. Redlock's majority survives one server. A lock that waits for
	// its replica's acknowledgement is never held where the failover loses
	// it, but with the only replica promoted nothing can acknowledge any
	// more: nobody gets the lock.
	"failover": {
		"setnx":                      {mutex, resource},
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog-uncapped": {mutex, resource},
		"uuid-lua-watchdog":          {mutex, resource},
		"fenced":                     {mutex, resource},
		"reentrant":                  {mutex, resource},
		"uuid-lua-wait":              {liveness},
	},
	// A pause longer than the lease breaks every lease, watchdog and Redlock
	// included; fencing keeps the data right though two clients believe.
	// Without a lease (setnx) B simply waits for A.
	"gc-pause": {
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog-uncapped": {mutex, resource},
		"uuid-lua-watchdog":          {mutex, resource},
		"redlock":                    {mutex, resource},
		"fenced":                     {mutex},
		"reentrant":                  {mutex, resource},
		"uuid-lua-wait":              {mutex, resource},
	},
	// Work longer than the lease: every lease without renewal lets B in
	// while A works, and A's late write loses B's update. A watchdog renews
	// the lease; without a lease B simply waits.
	"lease-too-short": {
		"setnx-expire":  {mutex, resource},
		"set-nx-ex":     {mutex, resource},
		"uuid-get-del":  {mutex, resource},
		"uuid-lua":      {mutex, resource},
		"redlock":       {mutex, resource},
		"reentrant":     {mutex, resource},
		"uuid-lua-wait": {mutex, resource},
	},
	// A hung business thread: without a cap the watchdog renews forever
	// (liveness), as does a lock without a lease. A lease that runs out —
	// plain or after the cap — hands the lock to B while A still believes
	// (mutex), and A's late write is stale (resource) unless the resource
	// checks fencing tokens.
	"hung-holder": {
		"setnx":                      {liveness},
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog-uncapped": {liveness},
		"uuid-lua-watchdog":          {mutex, resource},
		"redlock":                    {mutex, resource},
		"fenced":                     {mutex},
		"reentrant":                  {mutex, resource},
		"uuid-lua-wait":              {mutex, resource},
	},
	// A nested acquire of the same lock: only a lock that counts holds per
	// owner lets it in; every other one makes A wait for itself.
	"reentrant-call": {
		"setnx":                      {liveness},
		"setnx-expire":               {liveness},
		"set-nx-ex":                  {liveness},
		"uuid-get-del":               {liveness},
		"uuid-lua":                   {liveness},
		"uuid-lua-watchdog-uncapped": {liveness},
		"uuid-lua-watchdog":          {liveness},
		"redlock":                    {liveness},
		"fenced":                     {liveness},
		"uuid-lua-wait":              {liveness},
	},
	// A server that restarts without persistence forgets its locks: a
	// single server loses every lock it held (the fencing counter too), and
	// a Redlock majority of exactly three becomes two.
	"redlock-restart": {
		"setnx":                      {mutex, resource},
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog":          {mutex, resource},
		"uuid-lua-watchdog-uncapped": {mutex, resource},
		"redlock":                    {mutex, resource},
		"fenced":                     {mutex, resource},
		"reentrant":                  {mutex, resource},
		"uuid-lua-wait":              {mutex, resource},
	},
	// Staying down for longer than the TTL keeps everyone safe.
	"redlock-delayed-restart": {},
	// A clock that jumps ahead expires every lease there early. Without a
	// lease nothing expires; the fencing counter has no TTL, so fencing
	// still refuses A's late write.
	"redlock-clock-jump": {
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog":          {mutex, resource},
		"uuid-lua-watchdog-uncapped": {mutex, resource},
		"redlock":                    {mutex, resource},
		"fenced":                     {mutex},
		"reentrant":                  {mutex, resource},
		"uuid-lua-wait":              {mutex, resource},
	},
	// With WAIT the lock is held only once the replica has it; everyone
	// else loses A's hold at the failover as before. Redlock needs no
	// replica.
	"failover-wait": {
		"setnx":                      {mutex, resource},
		"setnx-expire":               {mutex, resource},
		"set-nx-ex":                  {mutex, resource},
		"uuid-get-del":               {mutex, resource},
		"uuid-lua":                   {mutex, resource},
		"uuid-lua-watchdog":          {mutex, resource},
		"uuid-lua-watchdog-uncapped": {mutex, resource},
		"fenced":                     {mutex, resource},
		"reentrant":                  {mutex, resource},
	},
}

// Expected returns the invariants expected to break when scenario runs
// against impl, in invariant order.
func Expected(scenario, impl string) []string {
	return slices.Clone(expected[scenario][impl])
}

// Fix is the implementation to set beside impl in this failure mode: the
// first one after it in the catalogue that keeps every invariant here, else
// the one after it that breaks the fewest (fewer than impl does), else the
// first whose outcome differs, else simply the next one.
func Fix(scenario, impl string) string {
	names := lockimpl.Names()
	i := slices.Index(names, impl)
	mine := Expected(scenario, impl)
	fewest, best := len(mine), ""
	for _, n := range names[i+1:] {
		exp := Expected(scenario, n)
		if len(exp) < fewest {
			fewest, best = len(exp), n
		}
	}
	if best != "" {
		return best
	}
	for d := 1; d < len(names); d++ {
		if n := names[(i+d)%len(names)]; !slices.Equal(Expected(scenario, n), mine) {
			return n
		}
	}
	return names[(i+1)%len(names)]
}

// Result is one cell of the matrix.
type Result struct {
	Scenario string   `json:"scenario"`
	Impl     string   `json:"impl"`
	Broken   []string `json:"broken"`
	Expected []string `json:"expected"`
	Pass     bool     `json:"pass"`
	// Skipped says why a cell was not run on real servers (no replica, too
	// few servers); such a cell counts as passed.
	Skipped string `json:"skipped,omitempty"`
	// Drift and Margin, on real servers: how unevenly the run kept to its
	// clock (sim.Trace.Drift), and the real time of half a scenario second,
	// the narrowest margin a timeline leaves around a TTL boundary.
	Drift    time.Duration `json:"drift_ns,omitempty"`
	Margin   time.Duration `json:"margin_ns,omitempty"`
	Verdicts []sim.Verdict `json:"verdicts"`
	Trace    *sim.Trace    `json:"-"`
}

// Check runs every scenario against every implementation, in parallel, and
// compares the broken invariants with the expectation. Results come in
// scenario-major catalogue order. Only a run that could not complete is an
// error.
func Check() ([]Result, error) {
	return CheckCells(All(), lockimpl.All())
}

// CheckCells runs the given scenarios against the given implementations.
func CheckCells(scs []Scenario, impls []lockimpl.Info) ([]Result, error) {
	return checkOn(context.Background(), nil, scs, impls, runtime.GOMAXPROCS(0))
}

// CheckOn runs the whole matrix on real servers, parallel cells at a time,
// each cell under its own key prefix. Cells that need a replica share it and
// run one after another. Cells the target cannot run are skipped and say why.
func CheckOn(ctx context.Context, target *sim.Target, parallel int) ([]Result, error) {
	return checkOn(ctx, target, All(), lockimpl.All(), parallel)
}

func checkOn(ctx context.Context, target *sim.Target, scs []Scenario, impls []lockimpl.Info, parallel int) ([]Result, error) {
	type job struct {
		i    int
		s    Scenario
		impl lockimpl.Info
	}
	results := make([]Result, len(scs)*len(impls))
	errs := make([]error, len(results))
	run := func(j job) {
		t := target
		if t != nil {
			t = target.Sub(j.s.ID + ":" + j.impl.Name + ":")
		}
		results[j.i], errs[j.i] = runCell(ctx, j.s, j.impl, t)
	}
	jobs := make(chan job)
	var exclusive []job // cells that reconfigure the shared replica
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Go(func() {
			for j := range jobs {
				run(j)
			}
		})
	}
	for si, s := range scs {
		for ii, impl := range impls {
			j := job{si*len(impls) + ii, s, impl}
			if target != nil && s.Setup.Replica && impl.Nodes == 1 && target.Replica != nil {
				exclusive = append(exclusive, j)
				continue
			}
			jobs <- j
		}
	}
	close(jobs)
	wg.Wait()
	for _, j := range exclusive {
		run(j)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

func runCell(ctx context.Context, s Scenario, impl lockimpl.Info, target *sim.Target) (Result, error) {
	tr, err := s.RunOn(ctx, impl, target)
	skip := ""
	switch {
	case errors.Is(err, sim.ErrNeedsReplica):
		skip = "needs a replica of the first server: --replica ADDR --disposable"
	case errors.Is(err, sim.ErrEmbeddedOnly):
		skip = "makes the first server a replica again, which would wipe it; embedded only"
	case errors.Is(err, sim.ErrNeedsNodes):
		skip = fmt.Sprintf("needs %d servers in --redis", impl.Nodes)
	}
	if skip != "" {
		return Result{Scenario: s.ID, Impl: impl.Name, Broken: []string{}, Expected: nonNil(Expected(s.ID, impl.Name)),
			Pass: true, Skipped: skip}, nil
	}
	if err != nil {
		return Result{}, err
	}
	r := Result{Scenario: s.ID, Impl: impl.Name, Broken: tr.Broken(),
		Expected: Expected(s.ID, impl.Name), Verdicts: tr.Verdicts, Trace: tr, Drift: tr.Drift}
	if target != nil {
		r.Margin = target.Margin()
	}
	if r.Broken == nil {
		r.Broken = []string{}
	}
	if r.Expected == nil {
		r.Expected = []string{}
	}
	r.Pass = slices.Equal(r.Broken, r.Expected)
	return r, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
