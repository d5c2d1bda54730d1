package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Issue #27: a lock that takes and releases with WATCH and MULTI/EXEC
// (watch-multi) runs as written, and breaks nothing in any lesson that
// uuid-lua (a token and a compare-and-delete script) does not break: its EXEC is the one step at
// which its transaction happens, and the trace shows it as Redis does.
func TestTransactionLockBreaksWhatUUIDLuaBreaks(t *testing.T) {
	uuidLua := mustImpl(t, "uuid-lua")
	results, err := CheckCells(All(), []lockimpl.Info{mustImpl(t, "watch-multi"), uuidLua})
	if err != nil {
		t.Fatal(err)
	}
	sawExec, sawVoid := false, false
	for i := 0; i < len(results); i += 2 {
		opt, ref := results[i], results[i+1]
		if opt.Error != "" {
			t.Errorf("%s × watch-multi could not run: %s", opt.Scenario, opt.Error)
			continue
		}
		for _, inv := range opt.Broken {
			if !slices.Contains(ref.Broken, inv) {
				t.Errorf("%s: watch-multi breaks %s, which uuid-lua keeps", opt.Scenario, inv)
			}
		}
		for _, e := range opt.Trace.Events {
			if strings.HasPrefix(e.Command, "MULTI; SET lock:product:1001 ") && strings.HasSuffix(e.Command, "; EXEC") && e.Reply == "1) OK" {
				sawExec = true
			}
			if strings.HasSuffix(e.Command, "; EXEC") && e.Reply == "(nil)" &&
				strings.HasSuffix(e.Text.EN, "the transaction does nothing: a key it watches changed after its WATCH, so EXEC answers nil") {
				sawVoid = true
			}
		}
	}
	if !sawVoid {
		t.Error("no trace shows an EXEC that a WATCH voided (redlock-acquire-pause's A), said so")
	}
	if !sawExec {
		t.Error("no trace shows a transaction as MULTI; SET …; EXEC → 1) OK")
	}
}
