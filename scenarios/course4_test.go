package scenarios

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// The tests of this file read what the fourth pass over the course (issue
// #41, "Wrong or misleading") found the lessons saying against their own
// traces, each against the trace fact, or the library fact, it rests on.

// lessonTexts are every text of lesson s in lang: title, summary, story and
// the says its trace narrates.
func lessonTexts(t *testing.T, s Scenario, lang string) []string {
	t.Helper()
	out := []string{s.Title.In(lang), s.Summary.In(lang), s.Story.In(lang)}
	for _, e := range traceOf(t, s.ID, s.Naive).Events {
		if e.Kind == trace.KindNarration {
			out = append(out, e.Text.In(lang))
		}
	}
	return out
}

// A story that tells go-redis's ReadTimeout default tells the one of the
// go-redis lockstep builds with (item 1: "3s by default"; v9.23.0's
// options.go sets 5 s).
func TestReadTimeoutDefaultIsGoRedis(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dials
	opt := c.Options()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	says := map[string]*regexp.Regexp{
		"en": regexp.MustCompile("`ReadTimeout` does, (\\d+)s by\\s+default"),
		"zh": regexp.MustCompile("`ReadTimeout` 约束，go-redis v9 默认 (\\d+) 秒"),
	}
	seen := 0
	for _, s := range All() {
		for lang, re := range says {
			for _, m := range re.FindAllStringSubmatch(s.Story.In(lang), -1) {
				seen++
				if want := fmt.Sprint(int(opt.ReadTimeout / time.Second)); m[1] != want {
					t.Errorf("%s story (%s): %q, but go-redis's ReadTimeout default is %s", s.ID, lang, m[0], opt.ReadTimeout)
				}
			}
		}
	}
	if seen < 2 {
		t.Errorf("redlock-slow-node's story tells the ReadTimeout default %d times, want it in English and Chinese", seen)
	}
}

// endless says a sentence claims that something goes on for ever.
var endless = map[string]*regexp.Regexp{
	"en": regexp.MustCompile(`\bforever\b|\bnever (?:answers|returns)\b`),
	"zh": regexp.MustCompile(`永远等|永不停止|永远不(?:返回|响应)`),
}

// lessonName is a lesson's id in backticks: a sentence that names another
// lesson tells about that one's trace.
func namesALesson(sentence string) bool {
	for _, m := range implName.FindAllStringSubmatch(sentence, -1) {
		if _, err := Lookup(m[1]); err == nil {
			return true
		}
	}
	return false
}

// A sentence that says something lasts for ever (a watchdog that renews
// forever, a waiter that waits forever, a call that never returns) is not
// about a trace in which every client that wanted the lock got it (item 2:
// hung-holder said "B waits forever too" of setnx, whose B holds the lock
// at step 57, and "renews every 10s, forever" of a watchdog whose last
// renewal is at t=200s). A sentence about what would happen is not read.
func TestForeverIsNotWhereEveryoneGetsTheLock(t *testing.T) {
	for _, s := range All() {
		for lang, re := range endless {
			texts := append([]string{s.Title.In(lang), s.Summary.In(lang)}, strings.Split(s.Story.In(lang), "\n\n")...)
			for _, para := range texts {
				impls := []string{}
				for _, m := range implName.FindAllStringSubmatch(para, -1) {
					if _, ok := s.Expected(m[1]); ok {
						impls = append(impls, m[1])
					}
				}
				for _, sentence := range sentences(para) {
					if !re.MatchString(sentence) || hypothetical.MatchString(sentence) || namesALesson(sentence) {
						continue
					}
					about := impls
					if named := implsIn(s, sentence); len(named) > 0 {
						about = named
					} else if len(about) == 0 {
						about = []string{s.Naive}
					}
					for _, impl := range about {
						if everyoneGotIt(traceOf(t, s.ID, impl)) {
							t.Errorf("%s (%s) says it lasts for ever of %s, whose every waiting client gets the lock: %q", s.ID, lang, impl, sentence)
						}
					}
				}
			}
		}
	}
}

// implsIn are the implementations of s a sentence names.
func implsIn(s Scenario, sentence string) []string {
	var out []string
	for _, m := range implName.FindAllStringSubmatch(sentence, -1) {
		if _, ok := s.Expected(m[1]); ok {
			out = append(out, m[1])
		}
	}
	return out
}

// everyoneGotIt says no client of tr is still after the lock when the run
// ends: every acquire, a nested one too, came to an end.
func everyoneGotIt(tr *trace.Trace) bool {
	for _, c := range tr.Events[len(tr.Events)-1].Snap.Clients {
		if c.Belief == trace.BeliefWaiting || c.Op == trace.OpAcquire || c.Op == trace.OpReenter {
			return false
		}
	}
	return true
}

// granularity's coarse lock guards one row that A, B and C all update, so
// no text of the lesson says they share nothing; and the story says what
// the run measures, 15 s against 5 s, beside the course's "an order of
// magnitude" (item 3).
func TestGranularityTellsWhatTheRunShares(t *testing.T) {
	s, err := Lookup("granularity")
	if err != nil {
		t.Fatal(err)
	}
	tr := traceOf(t, s.ID, s.Naive)
	rows := map[string]string{} // the row each client writes
	var first, coarse, fineFrom, fine time.Duration = -1, 0, -1, 0
	for _, e := range tr.Events {
		if e.Kind == trace.KindBelief && strings.HasSuffix(e.Text.EN, " wants the lock") {
			switch e.Actor {
			case "A":
				first = e.T
			case "D":
				fineFrom = e.T
			}
		}
		if e.Kind != trace.KindResource {
			continue
		}
		if row, ok := strings.CutPrefix(e.Text.EN, e.Actor+" writes "); ok {
			rows[e.Actor], _, _ = strings.Cut(row, " ")
			switch e.Actor {
			case "A", "B", "C":
				coarse = max(coarse, e.T)
			default:
				fine = max(fine, e.T)
			}
		}
	}
	if first < 0 || fineFrom < 0 || rows["A"] == "" {
		t.Fatalf("granularity × %s: no A, D or write in the trace", s.Naive)
	}
	shared := rows["A"] == rows["B"] && rows["B"] == rows["C"]
	disjoint := regexp.MustCompile(`(?i)nothing they touch is shared|no order touched another's data|碰的数据互不相干|没碰别的订单的数据`)
	for _, lang := range []string{"en", "zh"} {
		for _, txt := range lessonTexts(t, s, lang) {
			if m := disjoint.FindString(txt); m != "" && shared {
				t.Errorf("granularity (%s) says %q, but A, B and C all write the row %s", lang, m, rows["A"])
			}
		}
	}
	coarseS, fineS := int((coarse-first)/time.Second), int((fine-fineFrom)/time.Second)
	for lang, want := range map[string]string{
		"en": fmt.Sprintf("%d s against %d s", coarseS, fineS),
		"zh": fmt.Sprintf("%d 秒对 %d 秒", coarseS, fineS),
	} {
		if !strings.Contains(s.Story.In(lang), want) {
			t.Errorf("granularity's story (%s) does not say what the run measures, %q", lang, want)
		}
	}
}

// redlock-slow-node's story names the cause its trace fits: redis-2 runs
// a command sent later before one sent earlier, which a stalled server (a
// long fsync, swapping) does not do, as it answers in the order commands
// came; a delay on the link does (item 4).
func TestSlowNodeStoryBlamesTheLink(t *testing.T) {
	tr := traceOf(t, "redlock-slow-node", "redlock")
	sent := map[string]time.Duration{} // by actor, when a command to redis-2 left
	var order []time.Duration          // when each command redis-2 ran was sent, in the order it ran
	for _, e := range tr.Events {
		if e.Kind == trace.KindSchedule && strings.Contains(e.Text.EN, " sends ") && e.Server == "redis-2" {
			sent[e.Actor] = e.T
		}
		if e.Kind == trace.KindCommand && e.Server == "redis-2" && !strings.HasPrefix(e.Reply, "(error)") {
			at, ok := sent[e.Actor]
			if !ok {
				at = e.T
			}
			delete(sent, e.Actor)
			order = append(order, at)
		}
	}
	if slices.IsSorted(order) {
		t.Fatalf("redlock-slow-node × redlock: redis-2 runs its commands in the order they were sent (%v); this test rests on one overtaking another", order)
	}
	s, _ := Lookup("redlock-slow-node")
	for lang, want := range map[string]string{"en": "the link that is slow, not the server", "zh": "慢的是链路，不是服务器"} {
		story := s.Story.In(lang)
		if !strings.Contains(story, want) {
			t.Errorf("redlock-slow-node's story (%s) does not say %q", lang, want)
		}
		for _, sentence := range sentences(story) {
			stall := regexp.MustCompile(`fsync|swapping|换页`).MatchString(sentence)
			inOrder := strings.Contains(sentence, "in the order they came") || strings.Contains(sentence, "按命令到达的顺序")
			if stall && !inOrder {
				t.Errorf("redlock-slow-node's story (%s) gives a stalled server as a cause, which would run commands in order: %q", lang, sentence)
			}
		}
	}
}

// A say is the same in every cell of its lesson: what it states of the
// lock as fact must be so in each. Two such facts (items 5 and 6): that the
// key has no TTL, so nothing frees it (setnx-no-ex's say, in set-nx-ex's
// cell too, whose SET has EX 30), and that a client takes the lock with a
// TTL (give-up's "TTL 30s", in setnx's cell too, whose SETNX sets none). A
// say may still tell them of the locks they are true of, with an if.
func TestSaysHoldInEveryCell(t *testing.T) {
	noTTL := regexp.MustCompile(`^Without a TTL on the key, nothing ever frees it|^没有过期时间，就没有任何东西能释放它`)
	takes := regexp.MustCompile(`\b([A-Z]) (?:takes|wants) the lock \(TTL (\d+)s\)|([A-Z]) 拿锁（TTL (\d+) 秒）`)
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		for i, e := range r.Trace.Events {
			if e.Kind != trace.KindNarration {
				continue
			}
			for _, lang := range []string{"en", "zh"} {
				for _, sentence := range sentences(e.Text.In(lang)) {
					if noTTL.MatchString(sentence) && !keyWithoutTTL(r.Trace, i) {
						t.Errorf("%s × %s, step %d (%s): %q, but the lock's key has a TTL or is gone", r.Scenario, r.Impl, e.Step, lang, sentence)
					}
					if m := takes.FindStringSubmatch(sentence); m != nil {
						c, ttl := m[1]+m[3], m[2]+m[4]
						if got := firstLease(r.Trace, c); got != ttl+"s" {
							t.Errorf("%s × %s, step %d (%s): %q, but %s's acquire leaves the key with %s", r.Scenario, r.Impl, e.Step, lang, sentence, c, got)
						}
					}
				}
			}
		}
	}
}

// keyWithoutTTL says the lock's key is on some server without a TTL at or
// after event i.
func keyWithoutTTL(tr *trace.Trace, i int) bool {
	for _, e := range tr.Events[i:] {
		for _, srv := range e.Snap.Servers {
			for _, k := range srv.Keys {
				if k.Key == tr.Key && k.TTL < 0 {
					return true
				}
			}
		}
	}
	return false
}

// firstLease is the TTL the lock's key has when client c first holds the
// lock ("no TTL", "no key"), whole seconds rounded up.
func firstLease(tr *trace.Trace, c string) string {
	for _, e := range tr.Events {
		if e.Kind != trace.KindBelief || e.Actor != c || !slices.ContainsFunc(e.Snap.Clients, func(s trace.ClientState) bool {
			return s.Name == c && s.Belief == trace.BeliefHolds
		}) {
			continue
		}
		for _, srv := range e.Snap.Servers {
			for _, k := range srv.Keys {
				if k.Writer == c && (k.Key == tr.Key || strings.Contains(k.Key, tr.Key)) && !strings.HasSuffix(k.Key, "fence") {
					if k.TTL < 0 {
						return "no TTL"
					}
					return fmt.Sprintf("%ds", (k.TTL+time.Second-1)/time.Second)
				}
			}
		}
		return "no key"
	}
	return "no hold"
}

// release-on-error calls its code the course's Redisson example: it is
// that example's shape, try { if (tryLock) … } finally { if
// (isHeldByCurrentThread()) unlock(); } (seed 001); and the refusal it
// says redisson-lease shows is the nil Redisson's unlock script answers
// for a lock the thread does not hold (item 10).
func TestReleaseOnErrorQuotesTheCourse(t *testing.T) {
	seed, err := os.ReadFile("/work/shared/seeds/001_6ab0a22c78cd7aaa.txt")
	if err != nil {
		t.Skip("the course texts are not here:", err)
	}
	shape := func(code string) []string { // the order of try, tryLock, finally and the check
		var out []string
		for _, w := range regexp.MustCompile(`\btry \{|tryLock\(|finally \{|isHeldByCurrentThread\(\)`).FindAllString(code, -1) {
			out = append(out, w)
		}
		return out
	}
	i := strings.Index(string(seed), "redisson.getLock")
	course := shape(string(seed)[i : i+400])
	s, _ := Lookup("release-on-error")
	for _, lang := range []string{"en", "zh"} {
		story := s.Story.In(lang)
		from, to := strings.Index(story, "```java"), strings.LastIndex(story, "```")
		if from < 0 || to <= from {
			t.Fatalf("release-on-error's story (%s) quotes no Java", lang)
		}
		if got := shape(story[from:to]); !slices.Equal(got, course) {
			t.Errorf("release-on-error's story (%s) quotes %v, the course's Redisson example is %v", lang, got, course)
		}
	}
	refused := false
	for _, e := range traceOf(t, "redisson-lease", "redisson").Events {
		if e.Kind == trace.KindCommand && strings.Contains(e.Command, "reentrant-release") && strings.Contains(e.Text.EN, "nothing changes") {
			refused = true
			if e.Reply != "(nil)" {
				t.Errorf("redisson-lease × redisson, step %d: a release of a lock not held answers %s; Redisson's script answers nil", e.Step, e.Reply)
			}
		}
	}
	if !refused {
		t.Error("redisson-lease × redisson shows no release refused")
	}
	if !strings.Contains(s.Story.EN, "answers\nnil") && !strings.Contains(s.Story.EN, "answers nil") {
		t.Error("release-on-error's story does not say what redisson-lease shows, the script's nil")
	}
}

// redlock-shared-host says why fencing does not help: every counter the
// fenced locks keep restarted empty, the single instance's and the one of
// each Redlock node, and each of them hands B the token A holds (item 11:
// "the fencing counter lived on redis-1" is true of fenced only).
func TestSharedHostNamesEveryFencedLock(t *testing.T) {
	s, _ := Lookup("redlock-shared-host")
	var para string
	for _, p := range strings.Split(s.Story.EN, "\n\n") {
		if strings.Contains(p, "fencing token") {
			para = p
		}
	}
	for _, impl := range []string{"fenced", "redlock-fenced"} {
		tr := traceOf(t, s.ID, impl)
		fences := map[string]int64{}
		for _, e := range tr.Events {
			for _, c := range e.Snap.Clients {
				if c.Fence > 0 {
					fences[c.Name] = c.Fence
				}
			}
		}
		if fences["A"] == 0 || fences["A"] != fences["B"] {
			t.Errorf("redlock-shared-host × %s: A's token %d, B's %d; the story says B gets A's", impl, fences["A"], fences["B"])
		}
		if !strings.Contains(para, "`"+impl+"`") {
			t.Errorf("redlock-shared-host's story says why fencing fails without naming %s: %q", impl, para)
		}
	}
}

// docs/course.md lists the course texts' points and where lockstep shows
// each (issue #41's re-score): every row links lessons that exist and
// names implementations that exist, its status is one of the page's four,
// and the tally under the table counts the rows.
func TestCoursePointsPage(t *testing.T) {
	page, err := os.ReadFile("../docs/course.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (\d+) \| .* \| (shown|partly|docs|contradicted) \|$`)
	link := regexp.MustCompile(`\]\(([a-z0-9-]+)\.md\)`)
	code := regexp.MustCompile("`([a-z0-9-]+)`")
	count := map[string]int{}
	rows := row.FindAllStringSubmatch(string(page), -1)
	for i, r := range rows {
		if r[1] != fmt.Sprint(i+1) {
			t.Errorf("row %d is numbered %s", i+1, r[1])
		}
		count[r[2]]++
		for _, l := range link.FindAllStringSubmatch(r[0], -1) {
			if _, err := Lookup(l[1]); err != nil && l[1] != "self-check" {
				t.Errorf("point %s links %s.md, no lesson", r[1], l[1])
			}
		}
		// The implementations the row names: every code span of one word
		// but the invariants, lesson families and server programs.
		others := []string{"mutex", "ownership", "liveness", "resource", "redis-server", "redis-cli", "guard-"}
		for _, c := range code.FindAllStringSubmatch(strings.Split(r[0], " | ")[3], -1) {
			if !slices.ContainsFunc(others, func(o string) bool { return strings.HasPrefix(c[1], o) }) {
				if _, err := lockimpl.Lookup(c[1]); err != nil {
					t.Errorf("point %s names %s, no implementation", r[1], c[1])
				}
			}
		}
	}
	if len(rows) == 0 {
		t.Fatal("no rows in docs/course.md")
	}
	tally := fmt.Sprintf("**%d shown, %d partly, %d docs, %d contradicted, of %d.**", count["shown"], count["partly"], count["docs"], count["contradicted"], len(rows))
	if !strings.Contains(string(page), tally) {
		t.Errorf("docs/course.md's tally is not %s", tally)
	}
}
