package scenarios

import (
	"strings"
	"testing"
)

// Issue #29 item 8: the EVAL that follows an EVALSHA's NOSCRIPT is sent by
// the code that called EVALSHA, and the narration says whose it is. go-redis
// falls back only in Script.Run (bsm/redislock calls it; go-redis
// v9.23.0's script.go); redsync calls go-redis's EvalSha and Eval itself,
// in its go-redis adapter (redsync v4.18.1's redis/goredis/v9, conn.Eval).
func TestNoScriptCreditsTheCodeThatFallsBack(t *testing.T) {
	want := map[string][2]string{ // by implementation: the credit, in en and zh
		"redislock":       {"go-redis's Script.Run", "go-redis 的 Script.Run"},
		"redsync":         {"redsync's go-redis adapter (conn.Eval)", "redsync 的 go-redis 适配器（conn.Eval）"},
		"redsync-redlock": {"redsync's go-redis adapter (conn.Eval)", "redsync 的 go-redis 适配器（conn.Eval）"},
	}
	seen := map[string]bool{}
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		for _, e := range r.Trace.Events {
			if !strings.HasPrefix(e.Reply, "(error) NOSCRIPT") {
				continue
			}
			seen[r.Impl] = true
			w, ok := want[r.Impl]
			if !ok {
				t.Errorf("%s × %s, step %d: an EVALSHA of an implementation this test does not know: %q", r.Scenario, r.Impl, e.Step, e.Text.EN)
				continue
			}
			if !strings.Contains(e.Text.EN, w[0]+" sends it whole next (EVAL)") {
				t.Errorf("%s × %s, step %d: %q does not credit %s", r.Scenario, r.Impl, e.Step, e.Text.EN, w[0])
			}
			if !strings.Contains(e.Text.ZH, w[1]) {
				t.Errorf("%s × %s, step %d: %q does not credit %s", r.Scenario, r.Impl, e.Step, e.Text.ZH, w[1])
			}
		}
	}
	for impl := range want {
		if !seen[impl] {
			t.Errorf("no cell of %s meets a NOSCRIPT", impl)
		}
	}
	// The lesson whose point the fallback is says whose it is, too.
	s, err := Lookup("redlock-partial")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, credit, wrong string }{
		{s.Story.EN, "adapter", "as go-redis does for any script"},
		{s.Story.ZH, "适配器", "go-redis 对所有脚本都是这样"},
	} {
		if !strings.Contains(c.text, c.credit) || !strings.Contains(c.text, "conn.Eval") || strings.Contains(c.text, c.wrong) {
			t.Errorf("redlock-partial's story does not credit redsync's adapter (conn.Eval) with the EVAL after NOSCRIPT, or says %q", c.wrong)
		}
	}
}

// A restarted server has forgotten its scripts, as Redis does (its script
// cache lives in memory only): the first EVALSHA a node gets after its
// restart is answered NOSCRIPT, embedded as on a real server, and the lock's
// EVAL follows (#38, item 9). Before, an embedded restart kept miniredis's
// script cache and the EVALSHA ran.
func TestRestartedServerForgetsScripts(t *testing.T) {
	checked := 0
	for _, r := range sharedCheck(t) {
		if r.Trace == nil || r.Impl != "redislock" {
			continue
		}
		restarted := map[string]bool{}
		for _, e := range r.Trace.Events {
			switch {
			case e.Short.EN == "UP (empty)":
				restarted[e.Server] = true
			case restarted[e.Server] && len(e.Args) > 0 && strings.EqualFold(e.Args[0], "evalsha"):
				restarted[e.Server] = false
				checked++
				if !strings.HasPrefix(e.Reply, "(error) NOSCRIPT") {
					t.Errorf("%s × %s, step %d: the first EVALSHA on %s after its restart got %q, want NOSCRIPT", r.Scenario, r.Impl, e.Step, e.Server, e.Reply)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no cell of redislock sends EVALSHA to a restarted server")
	}
}
