// Package engine is the world of one run (World) and everything that moves
// it: the scheduler and its actors (Sched, sched.go), what the actors'
// goroutines call (ActorSide, actor.go), the gate every command of lock code
// parks at (gate.go), bubbles and virtual time (bubbled.go, time.go), the
// wall clock of a real run (Wall, realclock.go), the events a run records
// (events.go, record.go), and judging the invariants (judge.go). New builds
// a world. Its servers are package fleet's, what it is made of package
// model's; package sim drives it (Run, a Timeline, a Stepper) and is the
// only package that imports it.
package engine
