package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"lockstep/lockimpl"
	"lockstep/scenarios"
	"lockstep/scenarios/sim"
)

// letters abbreviates the invariants in the matrix table.
var letters = map[string]string{
	sim.InvMutex:     "M",
	sim.InvOwnership: "O",
	sim.InvLiveness:  "L",
	sim.InvResource:  "R",
}

// Matrix writes the check results as a table: one row per scenario, one
// column per implementation (numbered, with a key below, so that the table
// fits in 80 columns), each cell the invariants that broke ("—" for none),
// marked "!" where that differs from the expectation and "?" where no result
// was given. Unmet cells are listed below the table.
func Matrix(w io.Writer, results []scenarios.Result, lang string) error {
	p := &printer{w: w}
	var ids, impls []string
	cells := map[[2]string]scenarios.Result{}
	for _, r := range results {
		if !slices.Contains(ids, r.Scenario) {
			ids = append(ids, r.Scenario)
		}
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		cells[[2]string{r.Impl, r.Scenario}] = r
	}
	width := 0
	for _, id := range ids {
		width = max(width, len(id))
	}
	const col = 5 // "MOR!" and a space
	failed := 0
	var line strings.Builder
	flush := func() {
		p.printf("%s\n", strings.TrimRight(line.String(), " "))
		line.Reset()
	}
	fmt.Fprintf(&line, "%-*s", width+2, "")
	for i := range impls {
		fmt.Fprintf(&line, "%-*d", col, i+1)
	}
	flush()
	for _, id := range ids {
		fmt.Fprintf(&line, "%-*s", width+2, id)
		for _, name := range impls {
			r, ok := cells[[2]string{name, id}]
			cell := abbreviate(r.Broken)
			switch {
			case ok && r.Skipped != "":
				cell = "skip"
			case !ok:
				cell = "?" // not run: counts as unmet
				failed++
			case !r.Pass:
				cell += "!"
				failed++
			}
			// Pad by runes: "—" is one column but three bytes.
			fmt.Fprintf(&line, "%s%s", cell, strings.Repeat(" ", col-utf8.RuneCountInString(cell)))
		}
		flush()
	}
	// The key to the columns, as many to a line as fit in 80.
	p.printf("\n")
	for i, name := range impls {
		entry := fmt.Sprintf("%d %s", i+1, name)
		if line.Len() > 0 && line.Len()+len(entry)+3 > 80 {
			flush()
		}
		if line.Len() > 0 {
			line.WriteString(" · ")
		}
		line.WriteString(entry)
	}
	flush()
	p.printf("%s\n", pick(lang,
		"M mutex · O ownership · L liveness · R resource: broken; — none broken",
		"M 互斥 · O 归属 · L 活性 · R 资源：被破坏；— 表示都没被破坏"))
	skipped := 0
	for _, r := range results {
		if r.Margin > 0 && r.Drift > r.Margin {
			p.printf(pick(lang, "WARNING %s × %s kept to its clock only within %s, more than its %s margins: a verdict near a TTL boundary may be off; a larger --time-scale gives more room\n",
				"警告 %s × %s 与时钟的偏差达 %s，超过了 %s 的余量：临近 TTL 边界的结论可能不准；可加大 --time-scale\n"),
				r.Scenario, r.Impl, r.Drift.Round(100*time.Microsecond), r.Margin)
		}
		if r.Skipped != "" {
			skipped++
			p.printf("%s %s × %s: %s\n", pick(lang, "SKIPPED", "跳过"), r.Scenario, r.Impl, r.Skipped)
		}
		if r.Pass {
			continue
		}
		p.printf("%s %s × %s: %s %s, %s %s\n", pick(lang, "UNMET", "不符合预期"), r.Scenario, r.Impl,
			pick(lang, "expected", "预期"), list(r.Expected), pick(lang, "got", "实际"), list(r.Broken))
	}
	if failed == 0 && skipped > 0 {
		p.printf(pick(lang, "%d cells meet their expectation, %d skipped\n", "%d 个组合符合预期，%d 个跳过\n"), len(impls)*len(ids)-skipped, skipped)
	} else if failed == 0 {
		p.printf(pick(lang, "all %d cells meet their expectation\n", "全部 %d 个组合都符合预期\n"), len(impls)*len(ids))
	} else {
		p.printf(pick(lang, "%d of %d cells do not meet their expectation\n", "%d / %d 个组合不符合预期\n"), failed, len(impls)*len(ids))
	}
	return p.err
}

func abbreviate(ids []string) string {
	if len(ids) == 0 {
		return "—"
	}
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(letters[id])
	}
	return b.String()
}

func list(ids []string) string {
	if len(ids) == 0 {
		return "{}"
	}
	return "{" + strings.Join(ids, ",") + "}"
}

// JSON writes v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// List writes the scenarios and implementations, one line each.
func List(w io.Writer, lang string) error {
	p := &printer{w: w}
	width := 0
	for _, s := range scenarios.All() {
		width = max(width, len(s.ID))
	}
	for _, in := range lockimpl.All() {
		width = max(width, len(in.Name))
	}
	p.printf("%s\n", pick(lang, "scenarios (failure modes):", "场景（故障模式）："))
	for _, s := range scenarios.All() {
		p.printf("  %-*s  %s\n", width, s.ID, s.Summary.In(lang))
	}
	p.printf("\n%s\n", pick(lang, "implementations:", "锁实现："))
	for _, in := range lockimpl.All() {
		summary := in.Summary
		if lang == "zh" {
			summary = in.SummaryZH
		}
		p.printf("  %-*s  %s\n", width, in.Name, summary)
	}
	return p.err
}
