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
// injects holds and faults. Invariants are judged from observations only —
// what each client believes, what each server holds, what the protected
// resource accepted — never from knowing which implementation runs.
//
// The same scenarios also run against real redis-server processes (RunOn with
// a Target): real time, scaled, with every key under the run's own prefix.
//
// Public face: Run, RunOn, Target, Setup, Script, Timeline, Client, Program,
// Trace. Everything else is internal.
package sim
