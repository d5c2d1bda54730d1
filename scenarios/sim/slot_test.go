package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// On a world whose setup says Cluster, the untagged fencing counter's
// acquire is refused with CROSSSLOT on every attempt and counts as the
// lesson's (liveness, not "no verdict"); the tagged one runs; without
// Cluster both run.
func TestClusterRefusesTheUntaggedCounter(t *testing.T) {
	run := func(impl string, cluster bool) (*trace.Trace, error) {
		in, err := lockimpl.Lookup(impl)
		if err != nil {
			t.Fatal(err)
		}
		setup := model.Setup{Cluster: cluster, Horizon: 61 * time.Second}
		return Run(setup, func(tl *Timeline) {
			tl.Client("A", model.Program{Work: 5 * time.Second})
			tl.Client("B", model.Program{Start: time.Second, Retry: time.Second, Work: 5 * time.Second})
			tl.RunToEnd()
		}, in)
	}
	tr, err := run("fenced-no-tag", true)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, e := range tr.Events {
		if strings.Contains(e.Reply, "CROSSSLOT Keys in request don't hash to the same slot") {
			refused++
		}
	}
	if refused == 0 || !strings.Contains(strings.Join(tr.Broken(), " "), "liveness") {
		t.Errorf("fenced-no-tag on a cluster: %d CROSSSLOT replies, broken %v; want refusals and liveness", refused, tr.Broken())
	}
	for _, c := range []struct {
		impl    string
		cluster bool
	}{{"fenced", true}, {"fenced-no-tag", false}} {
		tr, err := run(c.impl, c.cluster)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Broken()) != 0 {
			t.Errorf("%s (cluster %v) broke %v", c.impl, c.cluster, tr.Broken())
		}
	}
}
