package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"lockstep/scenarios/explore"
	"lockstep/scenarios/sim"
)

// Explore writes what a search found and how far it looked: a line per
// invariant, then the shortest counterexample's moves for each one that
// broke. It never claims more than was searched.
func Explore(w io.Writer, r explore.Result, lang string) error {
	p := &printer{w: w}
	o := r.Options
	faults := make([]string, len(o.Faults))
	for i, f := range o.Faults {
		faults[i] = string(f)
	}
	p.printf(pick(lang, "explore %s · %d clients, %d acquire attempt(s) each · faults: %s · depth ≤ %d\n",
		"搜索 %s · %d 个客户端，每个加锁 %d 次 · 故障：%s · 深度 ≤ %d\n"),
		r.Impl, o.Clients, o.Attempts, strings.Join(faults, ","), o.Depth)
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(r.States) / r.Elapsed.Seconds()
	}
	var scope string
	switch {
	case r.Complete:
		scope = pick(lang, fmt.Sprintf("every reachable state explored (no schedule is longer than %d moves)", r.Depth),
			fmt.Sprintf("所有可达状态都已搜索（没有超过 %d 步的调度）", r.Depth))
	case r.TimedOut:
		scope = pick(lang, fmt.Sprintf("stopped by the timeout: every schedule of up to %d moves explored, not beyond", r.Depth),
			fmt.Sprintf("因超时停止：只搜索了不超过 %d 步的全部调度", r.Depth))
	default:
		scope = pick(lang, fmt.Sprintf("every schedule of up to %d moves explored; longer ones were not", r.Depth),
			fmt.Sprintf("搜索了不超过 %d 步的全部调度；更长的没有搜索", r.Depth))
	}
	p.printf(pick(lang, "%d distinct states in %s (%.0f states/s); %s\n\n", "%d 个不同状态，用时 %s（每秒 %.0f 个）；%s\n\n"),
		r.States, r.Elapsed.Round(time.Millisecond), rate, scope)
	for _, inv := range sim.InvariantIDs() {
		f, broken := r.Broken(inv)
		if !broken {
			what := pick(lang, fmt.Sprintf("no schedule of up to %d moves breaks it", r.Depth),
				fmt.Sprintf("不超过 %d 步的调度都不会破坏它", r.Depth))
			if r.Complete {
				what = pick(lang, "no reachable schedule breaks it", "任何可达的调度都不会破坏它")
			}
			p.printf("  %-10s ✓ %s\n", inv, what)
			continue
		}
		p.printf(pick(lang, "  %-10s ✗ broken in %d moves: %s\n", "  %-10s ✗ %d 步即被破坏：%s\n"),
			inv, f.Moves, strings.Join(f.Trace.Schedule.Moves, " → "))
	}
	for _, f := range r.Found {
		p.printf(pick(lang, "\nshortest counterexample for %s:\n", "\n%s 的最短反例：\n"), f.Invariant)
		if err := Timeline(w, f.Trace, lang); err != nil {
			return err
		}
	}
	return p.err
}
