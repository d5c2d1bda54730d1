// Package sim is lockstep's engine: it runs real go-redis lock code against
// embedded Redis servers (miniredis) under a deterministic scheduler and
// records what happens as a Trace.
//
// The engine controls exactly three things:
//
//   - which client's next Redis command goes out: every command of every
//     client parks in a go-redis hook (the gate) until the scheduler grants
//     it, and exactly one is in flight at a time;
//   - what time it is: a virtual clock drives key expiry on the servers and
//     the implementations' own timers (watchdogs);
//   - faults: crash, stop-the-world pause, failover with replication lag.
//
// A scenario is a Script: it declares the clients and their programs
// (acquire → read → work → write → release), then moves time forward and
// injects holds and faults. The invariants (package invariant) are judged
// from observations only —
// what each client believes, what each server holds, what the protected
// resource accepted — never from knowing which implementation runs.
//
// The same scenarios also run against real redis-server processes (RunOn with
// a backend.Target): real time, scaled, with every key under the run's own
// prefix.
//
// The engine is the state machine; servers are outside it. It reaches each
// one only through a backend.Backend (package backend): dial, read the
// keys, advance the clock, and the faults (kill, stop, start, clock jump),
// plus what a run on real servers needs besides (an address, the lock
// clients' options, which errors are the environment's, the cleanup; a
// backend.Follower for a replica that replicates by itself). Embedded
// servers are the engine's own backend (backend.Embedded), their
// replication the engine's own model (internal/fleet). Real ones are package
// realserver, which imports package backend, not this one: a Target carries
// the constructor (Target.NewBackend, set by realredis.Connect) and every run
// on it gets its servers from there. Of a real run the engine keeps only the
// clock (backend.RealRun: virtual time on the wall clock, scaled).
//
// This package is the engine's face. The world itself is internal: package
// internal/engine is the world of one run (its scheduler and actors, the
// gate, bubbles and virtual time, the events it records, judging the
// invariants); internal/fleet its servers, their replication and failover;
// internal/model what a run is made of, as plain data.
//
// A Stepper is a world whose every move is chosen from outside (the
// explorer's and the sandbox's): its moves are client steps, time, and the
// faults' moves, each fault one file (fault.go says how); its State is
// package view's typed view, which package explore owns and hashes a state
// from (state.go builds it). Each
// invariant is one file of package invariant, judged from one place
// (internal/engine's judge.go).
//
// Public face, all of it:
//
//   - a run: Run, RunOn, Setup (DefaultTTL, DefaultDownAfter), Script,
//     Timeline, Client, Program (DefaultRetry); WithStallTimeout and
//     ErrStalled for lock code that never comes back; ErrOwnKeyEmbedded;
//   - the faults: Faults and FaultInfos (FaultInfo), their names
//     FaultExpiry, FaultCrash, FaultPause, FaultFailover, FaultRestart,
//     FaultHang, FaultClockJump, FaultPartition, FaultDelayedRestart
//     (RestartDelay); a lesson's fault verbs, LessonVerbs (LessonVerb,
//     VerbArgs: TakesNothing, TakesClient, TakesClientServers, TakesServer,
//     TakesServerBy; VerbStep; VerbSearch: SearchNothing, SearchFault,
//     SearchAsked, SearchLacks);
//   - the explorer: NewStepper, Stepper, Move, MoveKind (MoveStep, MoveTime
//     and the faults' MoveCrash, MovePause, MoveResume, MoveHang,
//     MoveUnhang, MovePartition, MoveHeal, MoveFailover, MoveRestart,
//     MoveClockJump, MoveDelayedRestart), ErrNoSuchMove; a Stepper's
//     State is package view's (scenarios/explore/view), which the
//     explorer owns.
//
// Everything else is internal (TestDocNamesEveryExport holds this list to
// the package). A Redis command as the engine reads it — how a trace shows
// it, what the guard lets a lock send, the errors lock clients get from the
// engine — is package command; the servers and a run on real ones
// (Backend, Target, RealRun, Pacer) are package backend; everything the
// engine says in English and Chinese is package narrate; the invariants
// are package invariant; the record of a run (Trace, KeyState) is package
// trace.
package sim
