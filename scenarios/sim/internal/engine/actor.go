package engine

import (
	"sync/atomic"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// ActorSide is the world as the actors' goroutines reach it: lock code and
// a client's program run there, and reach the scheduler only by messages
// (send), each answered before they go on. What runs on the scheduler's
// side is world's. closing says the run is closing (an actor's next call
// meets redis.ErrClosed); done is closed once its shutdown has ended and
// no scheduler reads any more.
type ActorSide struct {
	W       *World
	closing atomic.Bool
	Done    chan struct{}
}

// Send hands m to the scheduler. Once the run has shut down no scheduler
// reads: a goroutine that stalled and came back is answered redis.ErrClosed
// in its place, so it ends instead of blocking here forever.
func (s *ActorSide) Send(m model.Msg) {
	select {
	case s.W.Sched.Ch <- m:
	case <-s.Done:
		model.Closed(m)
	}
}
