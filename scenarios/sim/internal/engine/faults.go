package engine

import (
	"fmt"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// node is the server of node i, or of the last node when the implementation
// has fewer: "redis-3, or the only server of a single-instance lock".
func (f *Fleet) Node(i int) *model.Server {
	return f.Servers[f.Route[min(max(i, 0), len(f.Route)-1)]]
}

// stopServer takes node i's server down, and says whether it was up. The
// Stepper's fault moves call it alone: what the stop interrupts moves in
// moves of its own.
func (f *Fleet) StopServer(i int) bool {
	srv := f.Node(i)
	if !srv.Up {
		return false
	}
	srv.Up = false
	srv.Keys = nil
	srv.B.Stop()
	f.W.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.ServerStopped(srv.Name),
		Short: text.Text{EN: "DOWN", ZH: "宕机"}})
	return true
}

// restartServer is RestartServer.
func (f *Fleet) RestartServer(i int) {
	w := f.W
	srv := f.Node(i)
	if srv.Up {
		return
	}
	if err := srv.B.Start(); err != nil {
		w.Fail(fmt.Errorf("restart %s: %w", srv.Name, err))
		return
	}
	srv.Up, srv.Scripts = true, nil
	srv.Keys = f.ReadKeys(srv, nil)
	w.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.ServerRestarted(srv.Name),
		Short: text.Text{EN: "UP (empty)", ZH: "重启（空）"}})
}
