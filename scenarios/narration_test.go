package scenarios

import (
	"regexp"
	"slices"
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

// A write refused for a fencing token "already seen" follows a read or a
// write that showed the store that token, and the read says so (issue #41
// item 7: renew-other × fenced refused A's write for "1 < 2 already seen"
// at step 29, before any write with token 2; the read that carried 2 said
// nothing of it).
func TestRefusedFenceWasShown(t *testing.T) {
	seenIn := regexp.MustCompile(`with fencing token (\d+)`)
	refused := regexp.MustCompile(`fencing token \d+ < (\d+) already seen`)
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		shown := map[string]bool{}
		for _, e := range r.Trace.Events {
			if e.Kind != trace.KindResource {
				continue
			}
			if m := refused.FindStringSubmatch(e.Text.EN); m != nil && !shown[m[1]] {
				t.Errorf("%s × %s, step %d: %q, but no read or write before it showed the store token %s", r.Scenario, r.Impl, e.Step, e.Text.EN, m[1])
			}
			if m := seenIn.FindStringSubmatch(e.Text.EN); m != nil {
				shown[m[1]] = true
			}
		}
	}
}

// A watchdog's lost signal says what its renewal found: the lock gone only
// when no node holds the key, taken by another client when one holds that
// client's value (issue #41 item 8: renew-other × uuid-lua-watchdog's A
// "found the lock gone" while the key held B#1).
func TestLostSaysWhatTheRenewalFound(t *testing.T) {
	taken := regexp.MustCompile(`found the lock taken by (\w+)`)
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		for _, e := range r.Trace.Events {
			if e.Kind != trace.KindBelief || !strings.Contains(e.Text.EN, "'s watchdog found the lock") {
				continue
			}
			var writers []string
			for _, srv := range e.Snap.Servers {
				for _, k := range srv.Keys {
					if k.Key == r.Trace.Key && k.Writer != e.Actor {
						writers = append(writers, k.Writer)
					}
				}
			}
			m := taken.FindStringSubmatch(e.Text.EN)
			switch {
			case strings.Contains(e.Text.EN, "found the lock gone") && len(writers) > 0:
				t.Errorf("%s × %s, step %d: the lost signal says the lock is gone; %v holds it", r.Scenario, r.Impl, e.Step, writers)
			case m != nil && !slices.Contains(writers, m[1]):
				t.Errorf("%s × %s, step %d: the lost signal says %s took the lock; the key's writers are %v", r.Scenario, r.Impl, e.Step, m[1], writers)
			}
		}
	}
}

// A command a Redlock's acquire sends to take back a failed attempt (its
// release script, a DEL) is narrated as a release, not as the acquire
// (issue #41 item 9: "A/redis-1's acquire: … is deleted"; zh 加锁：删除了).
func TestUndoOfAFailedAcquireIsARelease(t *testing.T) {
	seen := 0
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		for _, e := range r.Trace.Events {
			if e.Kind != trace.KindCommand || !strings.Contains(e.Command, "<release>") {
				continue
			}
			client, bg, _ := trace.SplitActor(e.Actor)
			if bg {
				continue
			}
			for _, lang := range []string{"en", "zh"} {
				txt := e.Text.In(lang)
				if strings.Contains(txt, "'s acquire") || strings.Contains(txt, "上加锁：") || strings.HasPrefix(txt, client+" 加锁：") {
					t.Errorf("%s × %s, step %d (%s): a release script is narrated as an acquire: %q", r.Scenario, r.Impl, e.Step, lang, txt)
				}
			}
			if strings.Contains(e.Text.EN, "release after the failed attempt") {
				seen++
			}
		}
	}
	if seen == 0 {
		t.Error("no Redlock in the matrix takes back a failed attempt; this test reads nothing")
	}
}
