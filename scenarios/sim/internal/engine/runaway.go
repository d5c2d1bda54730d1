package engine

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// A script that never ends (EVAL "while true do end" 0) keeps a real
// server busy: past its busy threshold (busy-reply-threshold, 5s by
// default) Redis answers BUSY to every client until someone sends SCRIPT
// KILL. On a real server the lock's own command times out first; the
// engine then asks the backend to stop the script, and the run ends as the
// lock's failure, not as a server that could not be reached, so its
// cleanup and the cells after it run on a server that answers again.

// runaway says whether actor a's command in m timed out because its script
// kept the server busy, and if so stops the script and fails the run.
func (w *World) runaway(a *model.Actor, m model.Msg, srv *model.Server) bool {
	var ne net.Error
	if w.Wall.Real == nil || !errors.As(m.Err, &ne) || !ne.Timeout() || !command.RunsScript(m.Cmd) {
		return false
	}
	stopper, ok := srv.B.(backend.ScriptStopper)
	if !ok {
		return false
	}
	how, err := stopper.StopScript()
	if how == "" {
		if err != nil {
			w.Fail(w.Wall.RunErr(fmt.Errorf("%s: %s's %s timed out, and stopping a script there failed: %w", srv.B.Addr(), a.Name, strings.ToUpper(m.Cmd.Name()), err)))
			return true
		}
		return false
	}
	w.Fail(&command.RunawayScriptError{Impl: w.Impl.Name, Actor: a.Name, Command: strings.ToUpper(m.Cmd.Name()),
		Server: srv.Name, How: how, Err: m.Err.Error()})
	return true
}
