package scenarios

import (
	"regexp"
	"strings"
	"testing"

	"lockstep/scenarios/sim"
)

// A release that says it found the lock was not its own sent a command
// that found it so; one that sent nothing says so (issue #29 item 10:
// reentrant-call × uuid-lua's A "found the lock was not its own" at step
// 32, and no command was sent). The nested release, too.
func TestReleaseNarratesWhatItSent(t *testing.T) {
	begins := []string{"leaves its critical section and releases the lock", "nested call is done and gives the lock back"}
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		sent := map[string]int{} // by client: the commands of its release so far
		for _, e := range r.Trace.Events {
			client, bg, _ := sim.SplitActor(e.Actor)
			switch {
			case e.Kind == sim.KindCommand && !bg:
				sent[client]++
			case e.Kind != sim.KindBelief:
			case strings.Contains(e.Text.EN, begins[0]) || strings.Contains(e.Text.EN, begins[1]):
				sent[client] = 0
			case strings.Contains(e.Text.EN, "found the lock was not its own") && sent[client] == 0:
				t.Errorf("%s × %s, step %d: %q, yet the release sent no command", r.Scenario, r.Impl, e.Step, e.Text.EN)
			case strings.Contains(e.Text.EN, "sends no command") && sent[client] > 0:
				t.Errorf("%s × %s, step %d: %q, yet the release sent %d", r.Scenario, r.Impl, e.Step, e.Text.EN, sent[client])
			}
		}
	}
}

// failover's say names no command as the one that meets the dead primary
// but the one that does, in every implementation's trace (issue #29 item
// 7: it said "A's release, here"; a watchdog's renewal comes first at
// t=10s, and uuid-lua-wait's WAIT at once). And that command fails.
func TestFailoverSayNamesTheCommandThatFails(t *testing.T) {
	kinds := map[string]*regexp.Regexp{ // a command's kind, as its narration names it
		"release": regexp.MustCompile(`'s release\b`),
		"renewal": regexp.MustCompile(`'s renewal\b`),
		"WAIT":    regexp.MustCompile(`'s WAIT\b`),
		"acquire": regexp.MustCompile(`'s acquire\b`),
	}
	named := map[string]map[string]*regexp.Regexp{ // what a say may name
		"en": {"release": regexp.MustCompile(`\brelease\b`), "renewal": regexp.MustCompile(`\brenew`),
			"WAIT": regexp.MustCompile(`\bWAIT\b`), "acquire": regexp.MustCompile(`\bacquire\b`)},
		"zh": {"release": regexp.MustCompile(`释放`), "renewal": regexp.MustCompile(`续期`),
			"WAIT": regexp.MustCompile(`WAIT`), "acquire": regexp.MustCompile(`加锁`)},
	}
	for _, r := range sharedCheck(t) {
		if r.Scenario != "failover" || r.Trace == nil {
			continue
		}
		var say sim.Event
		failover := -1
		for i, e := range r.Trace.Events {
			if e.Kind == sim.KindNarration && strings.Contains(e.Text.EN, "next command") {
				say = e
			}
			if e.Kind == sim.KindFault && strings.Contains(e.Text.EN, "dies") {
				failover = i
				break
			}
		}
		if failover < 0 || say.Text.EN == "" {
			t.Fatalf("failover × %s: no failover, or no say about the next command", r.Impl)
		}
		dead := r.Trace.Events[failover].Server
		if dead == "" {
			dead = r.Trace.Servers[0]
		}
		kind := ""
		for _, e := range r.Trace.Events[failover:] {
			if client, _, _ := sim.SplitActor(e.Actor); e.Kind != sim.KindCommand || client != "A" || e.Server != dead {
				continue
			}
			if !strings.HasPrefix(e.Reply, "(error)") {
				t.Errorf("failover × %s: A's first command to the dead %s after the failover succeeds: step %d %s", r.Impl, dead, e.Step, e.Reply)
			}
			for k, re := range kinds {
				if re.MatchString(e.Text.EN) {
					kind = k
				}
			}
			break
		}
		for lang, names := range named {
			for _, sentence := range sentences(say.Text.In(lang)) {
				if !strings.Contains(sentence, "next command") && !strings.Contains(sentence, "下一条命令") {
					continue
				}
				for k, re := range names {
					if k != kind && re.MatchString(sentence) {
						t.Errorf("failover × %s (%s): the say names A's %s, but the command that fails is %q: %q", r.Impl, lang, k, kind, sentence)
					}
				}
			}
		}
	}
}
