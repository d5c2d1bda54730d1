package fleet

import (
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// Node is the server of node i, or of the last node when the implementation
// has fewer: "redis-3, or the only server of a single-instance lock".
func (f *Fleet) Node(i int) *model.Server {
	return f.Servers[f.Route[min(max(i, 0), len(f.Route)-1)]]
}

// StopServer takes node i's server down, and says whether it was up. The
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
	f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.ServerStopped(srv.Name),
		Short: text.Text{EN: "DOWN", ZH: "宕机"}})
	return true
}

// RestartServer is RestartServer.
func (f *Fleet) RestartServer(i int) {
	srv := f.Node(i)
	if srv.Up {
		return
	}
	if err := srv.B.Start(); err != nil {
		f.Host.Fail(fmt.Errorf("restart %s: %w", srv.Name, err))
		return
	}
	srv.Up, srv.Scripts = true, nil
	srv.Keys = f.ReadKeys(srv, nil)
	f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.ServerRestarted(srv.Name),
		Short: text.Text{EN: "UP (empty)", ZH: "重启（空）"}})
}

// Replicas is how many replicas a single-instance lock's server has.
func (f *Fleet) Replicas() int {
	if len(f.Route) == 1 && f.Servers[f.Route[0]].Replica >= 0 {
		return 1
	}
	return 0
}

// CloseServers closes the run's servers once every goroutine of the run
// has ended: an embedded server goes back to the pool for another world
// (another bubble) only then. After a run that left goroutines behind, an
// embedded server is dropped untouched: its connections may still be
// theirs.
func (f *Fleet) CloseServers(clean bool) {
	for _, srv := range f.Servers {
		if _, embedded := srv.B.(*backend.Embedded); embedded && !clean {
			continue
		}
		srv.B.Close()
	}
}

// NewMem is an embedded server for this world: a cluster node when the
// setup says Cluster.
func (f *Fleet) NewMem() *backend.Embedded {
	return backend.NewEmbedded(model.Epoch, f.Setup.Cluster)
}

// ReadKeys reads a server's keys, keeping each key's writer from prev. A
// key or value that has not changed since prev is prev's string, so that
// every snapshot shares one copy of it (a real server's reading is a new
// one each time). A server that cannot be read stops the run.
func (f *Fleet) ReadKeys(srv *model.Server, prev []trace.KeyState) []trace.KeyState {
	if !srv.Up {
		return nil
	}
	if f.Host.Real() != nil {
		srv.ReadAt = time.Now()
	}
	keys, err := srv.B.Read(f.Host.Time())
	if err != nil {
		f.Host.Fail(f.Host.RunErr(fmt.Errorf("read %s: %w", srv.Name, err)))
		return prev
	}
	for i := range keys {
		if old, ok := model.FindKey(prev, keys[i].Key); ok {
			keys[i].Key, keys[i].Writer = old.Key, old.Writer
			if keys[i].Value == old.Value {
				keys[i].Value = old.Value
			}
		}
	}
	return keys
}

func (f *Fleet) IndexOf(srv *model.Server) int { return slices.Index(f.Servers, srv) }
