package scenarios

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A lesson's texts tell about its traces, and the numbers they tell have to
// be the traces' (issue #29: a story said t=60s where the trace has t=55s,
// 15 seconds where it is 13, a pause of 33s that lasts 32s). The tests here
// read a number out of a text and look for it in the trace the text is
// about: a story's number checked against the trace it tells about is the
// kind of test that keeps them right.

// traceOf returns the shared matrix's trace of lesson × impl.
func traceOf(t *testing.T, lesson, impl string) *trace.Trace {
	t.Helper()
	for _, r := range sharedCheck(t) {
		if r.Scenario == lesson && r.Impl == impl {
			if r.Trace == nil {
				t.Fatalf("%s × %s has no trace: %s", lesson, impl, r.Error)
			}
			return r.Trace
		}
	}
	t.Fatalf("no cell %s × %s", lesson, impl)
	return nil
}

// seconds parses a number of seconds as a text writes it ("55", "7.26"),
// and says how far a time may be from it and still be what the text wrote:
// half a unit of its last digit (7.26 is 7.255 up to 7.265).
func seconds(t *testing.T, s string) (time.Duration, time.Duration) {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number of seconds: %v", s, err)
	}
	decimals := 0
	if _, frac, ok := strings.Cut(s, "."); ok {
		decimals = len(frac)
	}
	return time.Duration(f * float64(time.Second)), time.Duration(0.5 * math.Pow(10, -float64(decimals)) * float64(time.Second))
}

// sentences splits a text into its sentences, English and Chinese.
var sentenceEnd = regexp.MustCompile(`[.!?](\s+|$)|[。！？]`)

func sentences(s string) []string {
	var out []string
	for _, p := range sentenceEnd.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hypothetical: a sentence about what would happen, not what does.
var hypothetical = regexp.MustCompile(`\bwould\b|如果|假如`)

var implName = regexp.MustCompile("`([a-z][a-z0-9-]*)`")

// Every moment a story names ("at t=55s", "第 55 秒") is the time of an
// event — not a narration — of the trace of an implementation its
// paragraph names, or of the lesson's own (issue #29 item 1: renew-other's
// A "writes at t=60s anyway"; its write is at t=55s). A sentence about
// what would happen ("would", 如果) is not checked.
func TestStoryTimesAreInTheTrace(t *testing.T) {
	moments := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`\bt=(\d+(?:\.\d+)?)s\b`),
		"zh": regexp.MustCompile(`第 (\d+(?:\.\d+)?) 秒`),
	}
	for _, s := range All() {
		for lang, moment := range moments {
			for _, para := range strings.Split(s.Story.In(lang), "\n\n") {
				impls := []string{s.Naive}
				for _, m := range implName.FindAllStringSubmatch(para, -1) {
					if _, ok := s.Expected(m[1]); ok {
						impls = append(impls, m[1])
					}
				}
				for _, sentence := range sentences(para) {
					if hypothetical.MatchString(sentence) {
						continue
					}
					for _, m := range moment.FindAllStringSubmatch(sentence, -1) {
						at, within := seconds(t, m[1])
						if !anyEventAt(t, s.ID, impls, at, within) {
							t.Errorf("%s story (%s) names %s, but no event of %s happens then: %q",
								s.ID, lang, m[0], strings.Join(impls, ", "), sentence)
						}
					}
				}
			}
		}
	}
}

func anyEventAt(t *testing.T, lesson string, impls []string, at, within time.Duration) bool {
	t.Helper()
	for _, impl := range impls {
		for _, e := range traceOf(t, lesson, impl).Events {
			if e.Kind != trace.KindNarration && (e.T-at).Abs() < within {
				return true
			}
		}
	}
	return false
}

// pauses are how long each pause of a process lasted in tr (a pause
// freezes a whole process: a GC, a VM migration), from the clients'
// snapshots.
func pauses(tr *trace.Trace) []time.Duration {
	since := map[string]time.Duration{}
	var out []time.Duration
	for _, e := range tr.Events {
		for _, c := range e.Snap.Clients {
			start, paused := since[c.Name]
			switch {
			case c.Paused && !paused:
				since[c.Name] = e.T
			case !c.Paused && paused:
				out = append(out, e.T-start)
				delete(since, c.Name)
			}
		}
	}
	return out
}

// A pause a lesson's texts tell ("pauses for 38s", "stops for 38 seconds",
// 停顿了 38 秒) lasts that long in the lesson's trace: a title, a summary,
// a say, a story (issue #29 item 4: redlock-acquire-pause's A "pauses for
// 33s"; it pauses at t=1s and wakes at t=33s).
func TestStoryPausesLastAsInTheTrace(t *testing.T) {
	lengths := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`\b(?:pauses|stops|paused|stopped) for (\d+(?:\.\d+)?)(?:s\b| seconds)`),
		"zh": regexp.MustCompile(`(?:停顿了|停住了) ?(\d+(?:\.\d+)?) 秒`),
	}
	for _, s := range All() {
		tr := traceOf(t, s.ID, s.Naive)
		got := pauses(tr)
		for lang, length := range lengths {
			texts := []string{s.Title.In(lang), s.Summary.In(lang), s.Story.In(lang)}
			for _, e := range tr.Events {
				if e.Kind == trace.KindNarration {
					texts = append(texts, e.Text.In(lang))
				}
			}
			for _, text := range texts {
				for _, sentence := range sentences(text) {
					if hypothetical.MatchString(sentence) {
						continue
					}
					for _, m := range length.FindAllStringSubmatch(sentence, -1) {
						d, within := seconds(t, m[1])
						ok := false
						for _, p := range got {
							ok = ok || (p-d).Abs() < within
						}
						if !ok {
							t.Errorf("%s (%s) tells of a pause of %ss; the pauses of %s × %s last %v: %q",
								s.ID, lang, m[1], s.ID, s.Naive, got, sentence)
						}
					}
				}
			}
		}
	}
}

// writes are the events of tr where a write reached the resource: it was
// accepted (the resource's version moved) or refused by the resource's
// guard (its count of refusals moved).
func writes(tr *trace.Trace) []trace.Event {
	var out []trace.Event
	var last trace.ResourceState
	for i, e := range tr.Events {
		r := e.Snap.Resource
		if i > 0 && e.Kind == trace.KindResource && (r.Version != last.Version || r.Rejected != last.Rejected) {
			out = append(out, e)
		}
		last = r
	}
	return out
}

// writeOf is the first write of client c in tr.
func writeOf(t *testing.T, tr *trace.Trace, c string) trace.Event {
	t.Helper()
	for _, e := range writes(tr) {
		if e.Actor == c {
			return e
		}
	}
	t.Fatalf("%s × %s: %s never writes", tr.Scenario, tr.Impl, c)
	return trace.Event{}
}

// numberWords are the numbers a text may spell out.
var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5}

func number(t *testing.T, s string) int {
	t.Helper()
	if n, ok := numberWords[strings.ToLower(s)]; ok {
		return n
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// A claim is a number one of a lesson's texts tells, and what the trace of
// the lesson against impl says it is.
type claim struct {
	lesson, impl string
	text         func(Scenario) string
	says         *regexp.Regexp // the number is its first group
	is           func(t *testing.T, tr *trace.Trace) int
}

func title(lang string) func(Scenario) string {
	return func(s Scenario) string { return s.Title.In(lang) }
}

func summary(lang string) func(Scenario) string {
	return func(s Scenario) string { return s.Summary.In(lang) }
}

func story(lang string) func(Scenario) string {
	return func(s Scenario) string { return s.Story.In(lang) }
}

// The numbers lessons tell that no general test reads (issue #29 items 2
// and 3), each against the trace it is about.
func TestStoryNumbersAreTheTraces(t *testing.T) {
	initialStock := func(t *testing.T, tr *trace.Trace) int { return tr.Events[0].Snap.Resource.Value }
	sales := func(t *testing.T, tr *trace.Trace) int { return len(writes(tr)) }
	final := func(t *testing.T, tr *trace.Trace) int { return tr.Events[len(tr.Events)-1].Snap.Resource.Value }
	drop := func(t *testing.T, tr *trace.Trace) int {
		return initialStock(t, tr) - final(t, tr)
	}
	lost := func(t *testing.T, tr *trace.Trace) int { return sales(t, tr) - drop(t, tr) }
	// guard-unique: B's order comes first; A's, this many seconds later.
	orderGap := func(t *testing.T, tr *trace.Trace) int {
		return int((writeOf(t, tr, "A").T - writeOf(t, tr, "B").T) / time.Second)
	}
	claims := []claim{
		// oversell: the stock is 100, not one item; three sales, the stock
		// goes down by one, two decrements are lost.
		{"oversell", "no-lock", title("en"), regexp.MustCompile(`a stock of (\d+)`), initialStock},
		{"oversell", "no-lock", title("zh"), regexp.MustCompile(`(\d+) 件库存`), initialStock},
		{"oversell", "no-lock", summary("en"), regexp.MustCompile(`all three read (\d+)`), initialStock},
		{"oversell", "no-lock", summary("en"), regexp.MustCompile(`(\w+) sales`), sales},
		{"oversell", "no-lock", summary("en"), regexp.MustCompile(`the stock drops by (\w+)`), drop},
		{"oversell", "no-lock", summary("en"), regexp.MustCompile(`(\w+) decrements are lost`), lost},
		{"oversell", "no-lock", summary("zh"), regexp.MustCompile(`三人都读到 (\d+)`), initialStock},
		{"oversell", "no-lock", summary("zh"), regexp.MustCompile(`卖出(.)件`), sales},
		{"oversell", "no-lock", summary("zh"), regexp.MustCompile(`库存只少了(.)件`), drop},
		{"oversell", "no-lock", summary("zh"), regexp.MustCompile(`(.)次扣减丢失`), lost},
		{"oversell", "no-lock", story("en"), regexp.MustCompile(`a stock of (\d+)`), initialStock},
		{"oversell", "no-lock", story("en"), regexp.MustCompile(`(\w+) updates are lost`), lost},
		{"oversell", "uuid-lua", story("en"), regexp.MustCompile(`the stock\s+ends at (\d+)`), final},
		{"oversell", "uuid-lua", story("zh"), regexp.MustCompile(`库存最后是 (\d+)`), final},
		// guard-unique: A's insert comes 13 seconds after B's.
		{"guard-unique", "uuid-lua", story("en"), regexp.MustCompile(`A's, (\d+) seconds later`), orderGap},
		{"guard-unique", "uuid-lua", story("zh"), regexp.MustCompile(`A 的插入晚了 (\d+) 秒`), orderGap},
	}
	for _, c := range claims {
		s, err := Lookup(c.lesson)
		if err != nil {
			t.Fatal(err)
		}
		text := c.text(s)
		m := c.says.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: %q does not say %s", c.lesson, text, c.says)
			continue
		}
		if got, want := number(t, m[1]), c.is(t, traceOf(t, c.lesson, c.impl)); got != want {
			t.Errorf("%s: %q says %d; the trace of %s × %s, %d", c.lesson, m[0], got, c.lesson, c.impl, want)
		}
	}
}

// A title or summary that counts one item says what the trace has: the
// stock of oversell is 100 (issue #29 item 3: "Three buyers, one item"),
// and the three sales happened; two decrements were lost. The README's
// row for the lesson too.
func TestOversellCountsTheStock(t *testing.T) {
	s, err := Lookup("oversell")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `oversell` \\|.*$").FindString(string(readme))
	if row == "" {
		t.Fatal("README.md has no row for oversell")
	}
	if stock := traceOf(t, "oversell", "no-lock").Events[0].Snap.Resource.Value; stock > 1 {
		for _, text := range []string{s.Title.EN, s.Title.ZH, s.Summary.EN, s.Summary.ZH, row} {
			for _, one := range []string{"one item", "一件库存", "sales vanish", "销售凭空消失"} {
				if strings.Contains(text, one) {
					t.Errorf("oversell's stock is %d, yet %q says %q", stock, text, one)
				}
			}
		}
	}
}

// A watchdog renews while its process lives, whether or not the work moves
// on: in hung-holder A's business goroutine hangs and its watchdog renews
// on. So no text of a lesson says a watchdog renews while the holder works
// (issue #29 item 5: lease-too-short's watchdog renewed "while the holder
// is alive and working").
func TestWatchdogRenewsWhileTheProcessLives(t *testing.T) {
	renewedHung := false
	for _, e := range traceOf(t, "hung-holder", "uuid-lua-watchdog-uncapped").Events {
		for _, c := range e.Snap.Clients {
			if c.Name == "A" && c.Hung && e.Kind == trace.KindCommand && e.Actor == "A.watchdog" && e.Reply == "(integer) 1" {
				renewedHung = true
			}
		}
	}
	if !renewedHung {
		t.Fatal("hung-holder × uuid-lua-watchdog-uncapped: A's watchdog never renews while A hangs")
	}
	renews := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`\b(?:renews?|extends?)\b[^.;:—]*\bwhile\b[^,;:—]*\b(?:working|works)\b`),
		"zh": regexp.MustCompile(`看门狗|续期|延长`),
	}
	whileWorking := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`\bwhile\b`),
		"zh": regexp.MustCompile(`(?:还在|在)(?:干活|工作)(?:时|的时候)`),
	}
	for _, s := range All() {
		tr := traceOf(t, s.ID, s.Naive)
		for lang := range renews {
			texts := []string{s.Title.In(lang), s.Summary.In(lang), s.Story.In(lang)}
			for _, e := range tr.Events {
				if e.Kind == trace.KindNarration {
					texts = append(texts, e.Text.In(lang))
				}
			}
			for _, text := range texts {
				for _, sentence := range sentences(text) {
					if renews[lang].MatchString(sentence) && whileWorking[lang].MatchString(sentence) {
						t.Errorf("%s (%s): a watchdog renews while the process lives, working or not (hung-holder): %q", s.ID, lang, sentence)
					}
				}
			}
		}
	}
}

// The cap of a backoff bounds each wait, not the total: retries' C waits at
// most its cap at a time and, with no limit on its attempts, would retry
// forever behind a lock nobody releases. The story says so (issue #29 item
// 9: "a cap keeps the wait bounded").
func TestRetriesCapBoundsEachWaitNotTheTotal(t *testing.T) {
	s, err := Lookup("retries")
	if err != nil {
		t.Fatal(err)
	}
	var most time.Duration
	limited := false
	for _, l := range strings.Split(string(s.Source), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "client" || f[1] != "C" {
			continue
		}
		for _, kv := range f[2:] {
			switch k, v, _ := strings.Cut(kv, "="); k {
			case "backoff":
				if most, err = time.ParseDuration(v); err != nil {
					t.Fatal(err)
				}
			case "attempts":
				limited = true
			}
		}
	}
	if most == 0 || limited {
		t.Fatalf("retries' C should back off to a cap and try without limit (backoff %v, attempts limited %v)", most, limited)
	}
	last := time.Duration(-1)
	for _, e := range traceOf(t, "retries", s.Naive).Events {
		if e.Kind == trace.KindCommand && e.Actor == "C" && strings.HasPrefix(e.Command, "SET ") {
			if last >= 0 && e.T-last > most {
				t.Errorf("retries × %s: C waits %v at step %d, longer than its cap %v", s.Naive, e.T-last, e.Step, most)
			}
			last = e.T
		}
	}
	capBounds := map[string][2]*regexp.Regexp{
		"en": {regexp.MustCompile(`\bcap\b`), regexp.MustCompile(`\bbound`)},
		"zh": {regexp.MustCompile(`上限`), regexp.MustCompile(`有界`)},
	}
	each := map[string]*regexp.Regexp{"en": regexp.MustCompile(`\beach wait\b`), "zh": regexp.MustCompile(`每次等待`)}
	forever := map[string]*regexp.Regexp{"en": regexp.MustCompile(`\bretry forever\b`), "zh": regexp.MustCompile(`一直重试`)}
	for lang, cb := range capBounds {
		story := s.Story.In(lang)
		for _, sentence := range sentences(story) {
			if cb[0].MatchString(sentence) && cb[1].MatchString(sentence) && !each[lang].MatchString(sentence) {
				t.Errorf("retries story (%s): the cap bounds each wait, not the total: %q", lang, sentence)
			}
		}
		if !forever[lang].MatchString(story) {
			t.Errorf("retries story (%s) does not say that C, with no limit on its attempts, would retry forever (%s)", lang, forever[lang])
		}
	}
}
