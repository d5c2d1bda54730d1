package sim

import (
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// go-redis checks a connection when its pool hands it out, not between the
// commands of a transaction: watch-multi's WATCH and EXEC share one
// connection. When the primary dies between them, the EXEC is written on
// the dead connection and fails, as on a TCP socket whose server died; it
// does not run on the promoted replica, where nothing is watched (issue #29
// item 6). go-redis's UNWATCH as it closes the transaction meets the dead
// connection too.
func TestTransactionKeepsItsDeadConnection(t *testing.T) {
	tr := run(t, model.Setup{Replica: true, Lag: time.Second}, "watch-multi", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Attempts: 1, Work: time.Second})
		a.HoldAfter(trace.OpAcquire, 2) // after WATCH and EXISTS
		tl.RunUntil(500 * time.Millisecond)
		tl.Failover()
		tl.RunUntil(40 * time.Second) // past Sentinel's promotion
		a.Unhold()
		tl.RunToEnd()
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 WATCH lock:product:1001 → OK",
		"0s A redis-1 EXISTS lock:product:1001 → (integer) 0",
		"40s A redis-1 MULTI; SET lock:product:1001 A#1 EX 30; EXEC → 1) (error) connection to redis-1 lost: server is down",
		"40s A redis-1 UNWATCH → (error) redis: Conn is in a bad state: connection to redis-1 lost: server is down",
	})
}
