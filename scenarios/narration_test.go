package scenarios

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
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
			client, bg, _ := trace.SplitActor(e.Actor)
			switch {
			case e.Kind == trace.KindCommand && !bg:
				sent[client]++
			case e.Kind != trace.KindBelief:
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

// failover's say tells what A's next command meets, as every
// implementation's trace has it, and names no command as the one (issue
// #29 item 7: it said the command that fails on the old primary is "A's
// release, here"; a watchdog's renewal comes first at t=10s, and
// uuid-lua-wait's WAIT is on its way when the primary dies). Since item 6,
// a command sent after the failover reaches the promoted replica, and only
// one already waiting for the old primary's reply fails.
func TestFailoverSayTellsWhatTheNextCommandMeets(t *testing.T) {
	names := map[string]*regexp.Regexp{ // a command named, as a say may name it
		"en": regexp.MustCompile(`\b(?:release|renew\w*|acquire|WAIT)\b`),
		"zh": regexp.MustCompile(`释放|续期|加锁|WAIT`),
	}
	reaches := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`next command reaches the new primary`),
		"zh": regexp.MustCompile(`下一条命令就会发到新主库`),
	}
	oldFails := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`old one fails at its next command`),
		"zh": regexp.MustCompile(`旧主库的连接要到下一条命令才失败`),
	}
	for _, r := range sharedCheck(t) {
		if r.Scenario != "failover" || r.Trace == nil {
			continue
		}
		var say trace.Event
		failover := -1
		for i, e := range r.Trace.Events {
			if e.Kind == trace.KindNarration && strings.Contains(e.Text.EN, "next command") {
				say = e
			}
			if e.Kind == trace.KindFault && strings.Contains(e.Text.EN, "dies") {
				failover = i
				break
			}
		}
		if failover < 0 || say.Text.EN == "" {
			t.Fatalf("failover × %s: no failover, or no say about the next command", r.Impl)
		}
		f := r.Trace.Events[failover]
		promoted := strings.Contains(f.Text.EN, "promoted")
		// A's first command sent after the failover; one to the dead
		// server at the failover's moment was on its way already.
		var next *trace.Event
		for i := failover + 1; i < len(r.Trace.Events); i++ {
			e := &r.Trace.Events[i]
			if client, _, _ := trace.SplitActor(e.Actor); e.Kind != trace.KindCommand || client != "A" {
				continue
			}
			if e.Server == f.Server && e.T == f.T {
				if !strings.HasPrefix(e.Reply, "(error)") {
					t.Errorf("failover × %s, step %d: a command waiting for the dead %s's reply succeeds", r.Impl, e.Step, f.Server)
				}
				continue
			}
			next = e
			break
		}
		for lang := range names {
			for _, sentence := range sentences(say.Text.In(lang)) {
				if !strings.Contains(sentence, "next command") && !strings.Contains(sentence, "下一条命令") {
					continue
				}
				if m := names[lang].FindString(sentence); m != "" {
					t.Errorf("failover × %s (%s): the say names a command (%q) as the one that meets the failover: %q", r.Impl, lang, m, sentence)
				}
				if !promoted || next == nil {
					continue
				}
				failed := strings.HasPrefix(next.Reply, "(error)")
				if reaches[lang].MatchString(sentence) && (next.Server == f.Server || failed) {
					t.Errorf("failover × %s (%s): the say has the next command reach the new primary; step %d goes to %s: %s", r.Impl, lang, next.Step, next.Server, next.Reply)
				}
				if oldFails[lang].MatchString(sentence) && !failed {
					t.Errorf("failover × %s (%s): the say has the old connection fail at the next command; step %d gets %s", r.Impl, lang, next.Step, next.Reply)
				}
			}
		}
	}
}
