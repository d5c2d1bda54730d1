package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/text"
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
	p.printf("%s\n", text.New(
		fmt.Sprintf("explore %s · %s, %s each · faults: %s · depth ≤ %d", r.Impl,
			text.Count(o.Clients, "client", "clients"), text.Count(o.Attempts, "acquire attempt", "acquire attempts"), strings.Join(faults, ","), o.Depth),
		fmt.Sprintf("搜索 %s · %d 个客户端，每个加锁 %d 次 · 故障：%s · 深度 ≤ %d", r.Impl, o.Clients, o.Attempts, strings.Join(faults, ","), o.Depth)).In(lang))
	if world := worldLine(o, lang); world != "" {
		p.printf("%s\n", world)
	}
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(r.States) / r.Elapsed.Seconds()
	}
	var scope string
	moves := text.Count(r.Depth, "move", "moves")
	switch {
	case r.Complete:
		scope = text.New("every reachable state explored (no schedule is longer than "+moves+")", fmt.Sprintf("所有可达状态都已搜索（没有超过 %d 步的调度）", r.Depth)).In(lang)
	case r.OverBudget:
		scope = text.New(fmt.Sprintf("stopped at the state budget of %d: every schedule of up to %s explored, not beyond", r.Options.MaxStates, moves),
			fmt.Sprintf("达到状态数上限 %d 后停止：只搜索了不超过 %d 步的全部调度", r.Options.MaxStates, r.Depth)).In(lang)
	case r.TimedOut:
		scope = text.New("stopped by the timeout: every schedule of up to "+moves+" explored, not beyond", fmt.Sprintf("因超时停止：只搜索了不超过 %d 步的全部调度", r.Depth)).In(lang)
	default:
		scope = text.New("every schedule of up to "+moves+" explored; longer ones were not", fmt.Sprintf("搜索了不超过 %d 步的全部调度；更长的没有搜索", r.Depth)).In(lang)
	}
	p.printf(text.New("%s in %s (%.0f states/s); %s\n\n", "%s 个不同状态，用时 %s（每秒 %.0f 个）；%s\n\n").In(lang),
		text.New(text.Count(r.States, "distinct state", "distinct states"), fmt.Sprint(r.States)).In(lang), r.Elapsed.Round(time.Millisecond), rate, scope)
	for _, inv := range invariant.IDs() {
		f, broken := r.Broken(inv)
		if !broken {
			what := text.New("no schedule of up to "+moves+" breaks it", fmt.Sprintf("不超过 %d 步的调度都不会破坏它", r.Depth)).In(lang)
			if r.Complete {
				what = text.New("no reachable schedule breaks it", "任何可达的调度都不会破坏它").In(lang)
			}
			p.printf("  %-10s ✓ %s\n", inv, what)
			continue
		}
		p.printf(text.New("  %-10s ✗ broken in %s: %s\n", "  %-10s ✗ %s 步即被破坏：%s\n").In(lang),
			inv, text.New(text.Count(f.Moves, "move", "moves"), fmt.Sprint(f.Moves)).In(lang), strings.Join(f.Trace.Schedule.Moves, " → "))
	}
	for _, f := range r.Found {
		p.printf(text.New("\nshortest counterexample for %s:\n", "\n%s 的最短反例：\n").In(lang), f.Invariant)
		if err := Timeline(w, f.Trace, lang); err != nil {
			return err
		}
	}
	return p.err
}

// worldLine says how a search's world differs from the standard one: its
// liveness bound, guard and stock; empty when it does not.
func worldLine(o explore.Options, lang string) string {
	var parts []string
	if o.Nodes != 0 && o.Nodes != explore.DefaultNodes {
		parts = append(parts, text.New(fmt.Sprintf("Redlock on %d servers", o.Nodes), fmt.Sprintf("Redlock 使用 %d 个节点", o.Nodes)).In(lang))
	}
	if o.Liveness != 0 && o.Liveness != explore.TTL {
		parts = append(parts, text.New("liveness after ", "活性界限 ").In(lang)+o.Liveness.String())
	}
	if o.Guard != trace.GuardNone {
		parts = append(parts, text.New("guard ", "守卫 ").In(lang)+string(o.Guard))
	}
	if o.Stock != 0 && o.Stock != 100 {
		parts = append(parts, text.New("stock ", "库存 ").In(lang)+fmt.Sprint(o.Stock))
	}
	if o.Reenter {
		parts = append(parts, text.New("nested acquire", "嵌套加锁").In(lang))
	}
	if o.Check {
		parts = append(parts, text.New("a check before each write", "每次写入前先检查").In(lang))
	}
	if o.Readers > 0 {
		parts = append(parts, text.New(fmt.Sprintf("%d of them readers", o.Readers), fmt.Sprintf("其中 %d 个是读者", o.Readers)).In(lang))
	}
	if o.Lease > 0 {
		parts = append(parts, text.New("each client passes a lease of ", "每个客户端自己传入租约 ").In(lang)+o.Lease.String())
	}
	if o.MaxStates > 0 && o.MaxStates != explore.MaxStatesBound {
		// The bound itself is the default: said only when the search
		// stops at it.
		parts = append(parts, text.New("at most ", "状态数上限 ").In(lang)+fmt.Sprint(o.MaxStates)+text.New(" states", "").In(lang))
	}
	return strings.Join(parts, " · ")
}
