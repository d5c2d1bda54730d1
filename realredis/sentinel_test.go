package realredis_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// sentinels adds LOCKSTEP_SENTINELS (.ci/redis-sentinels start DIR) to the
// shared servers.
func sentinels(t *testing.T) realredis.Config {
	t.Helper()
	cfg := servers(t)
	addrs := os.Getenv("LOCKSTEP_SENTINELS")
	if addrs == "" {
		t.Skip("skipped: no Sentinels. Set LOCKSTEP_SENTINELS=host:port,… (three), e.g. from .ci/redis-sentinels start DIR")
	}
	cfg.Sentinels = strings.Split(addrs, ",")
	return cfg
}

// The failover lesson with real Sentinels deciding: the verdicts are the
// embedded ones; each trace shows the Sentinels finding the primary down
// and promoting the replica (+sdown, +odown, +switch-master), in that order
// and after the primary died; no Sentinel remembers the run's master
// afterwards, and the primary was never reconfigured.
func TestRealSentinelFailover(t *testing.T) {
	cfg := sentinels(t)
	s, err := scenarios.Lookup("failover")
	if err != nil {
		t.Fatal(err)
	}
	var impls []lockimpl.Info
	for _, name := range []string{"uuid-lua", "fenced"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		impls = append(impls, in)
	}
	embedded, err := scenarios.CheckCells([]scenarios.Scenario{s}, impls)
	if err != nil {
		t.Fatal(err)
	}
	real, err := scenarios.CheckCellsOn(t.Context(), connect(t, cfg), []scenarios.Scenario{s}, impls, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range real {
		if r.Error != "" || r.Skipped != "" {
			t.Fatalf("%s: %s%s", r.Impl, r.Error, r.Skipped)
		}
		if !slices.Equal(r.Broken, embedded[i].Broken) {
			t.Errorf("%s: broken %v with Sentinel, %v embedded", r.Impl, r.Broken, embedded[i].Broken)
		}
		var died float64 = -1
		var order []string
		for _, e := range r.Trace.Events {
			switch {
			case strings.Contains(e.Text.EN, "(primary) dies before its replica"):
				died = e.T.Seconds()
			case strings.Contains(e.Text.EN, "(+sdown)"), strings.Contains(e.Text.EN, "(+odown)"), strings.Contains(e.Text.EN, "(+switch-master)"):
				if died < 0 || e.T.Seconds() < died {
					t.Errorf("%s: %q at t=%.1fs, before the primary died (t=%.1fs)", r.Impl, e.Text.EN, e.T.Seconds(), died)
				}
				for _, k := range []string{"+sdown", "+odown", "+switch-master"} {
					if strings.Contains(e.Text.EN, "("+k+")") {
						order = append(order, k)
					}
				}
			}
		}
		if want := []string{"+sdown", "+odown", "+switch-master"}; !slices.Equal(order, want) {
			t.Errorf("%s: the Sentinels' events %v, want %v", r.Impl, order, want)
		}
	}
	for _, a := range cfg.Sentinels {
		o, err := realredis.Parse(a)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewSentinelClient(o)
		defer c.Close()
		masters, err := c.Masters(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(masters) > 0 {
			t.Errorf("Sentinel %s still watches %v", a, masters)
		}
	}
	primary := clients(t, cfg)[0]
	if role, err := primary.Do(t.Context(), "ROLE").Slice(); err != nil || len(role) == 0 || role[0] != "master" {
		t.Errorf("the primary's ROLE after the runs: %v (%v); want it still a master", role, err)
	}
}
