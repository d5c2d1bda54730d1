package scenarios

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"lockstep/scenarios/sim"
)

// A lesson's texts tell about its traces, and the numbers they tell have to
// be the traces' (issue #29: a story said t=60s where the trace has t=55s,
// 15 seconds where it is 13, a pause of 33s that lasts 32s). The tests here
// read a number out of a text and look for it in the trace the text is
// about: a story's number checked against the trace it tells about is the
// kind of test that keeps them right.

// traceOf returns the shared matrix's trace of lesson × impl.
func traceOf(t *testing.T, lesson, impl string) *sim.Trace {
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
			if e.Kind != sim.KindNarration && (e.T-at).Abs() < within {
				return true
			}
		}
	}
	return false
}

// pauses are how long each pause of a process lasted in tr (a pause
// freezes a whole process: a GC, a VM migration), from the clients'
// snapshots.
func pauses(tr *sim.Trace) []time.Duration {
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
				if e.Kind == sim.KindNarration {
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
