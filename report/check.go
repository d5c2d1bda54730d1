package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// letters abbreviates the invariants in the matrix table.
var letters = map[string]string{
	invariant.Mutex:     "M",
	invariant.Ownership: "O",
	invariant.Liveness:  "L",
	invariant.Resource:  "R",
}

// tableWidth is the widest line of the check table: a terminal's default
// width, and what the README and the docs pages show in a code block.
const tableWidth = 80

// Matrix writes the check results as a table: one row per scenario, one
// column per implementation (numbered, with a key below), each cell the
// invariants that broke ("—" for none), marked "~" where the run's verdict
// did not count (Result.Untrusted), "!" where that differs from
// the expectation and "?" where no result was given. Unmet cells are listed
// below the table. The table and its key fit in 80 columns however many
// scenarios and implementations there are (see table).
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
	failed, untrusted := 0, 0
	marks := map[[2]string]string{}
	for _, id := range ids {
		for _, name := range impls {
			r, ok := cells[[2]string{name, id}]
			mark := abbreviate(r.Broken)
			switch {
			case ok && r.Error != "":
				mark = "err" // could not run: counts as unmet
				failed++
			case ok && r.Skipped != "":
				mark = "skip"
			case !ok:
				mark = "?" // not run: counts as unmet
				failed++
			case r.Untrusted:
				mark += "~" // its verdict did not count
				untrusted++
			case !r.Pass:
				mark += "!"
				failed++
			case r.Unjudged:
				mark += "*" // the lesson has no expectation for it
			}
			marks[[2]string{name, id}] = mark
		}
	}
	table(p, ids, impls, marks)
	p.printf("\n")
	columnKey(p, impls)
	p.printf("%s\n", text.New(
		"M mutex · O ownership · L liveness · R resource: broken; — none broken",
		"M 互斥 · O 归属 · L 活性 · R 资源：被破坏；— 表示都没被破坏").In(lang))
	skipped, unjudged := 0, 0
	for _, r := range results {
		if r.Unjudged {
			unjudged++
		}
		if n := len(r.Slower); n > 0 {
			p.printf(text.New(
				"NOTE %s × %s ran again, slower, at %s per scenario second: the run before kept to its clock only within %s, more than its margins\n",
				"注意 %s × %s 放慢后重跑，每个场景秒 %s：上一次运行与时钟的偏差达 %s，超过了余量\n").In(lang),
				r.Scenario, r.Impl, 2*r.Margin, r.Slower[n-1].Round(100*time.Microsecond))
		}
		if r.Untrusted {
			p.printf(text.New(
				"UNTRUSTED %s × %s kept to its clock only within %s, more than its %s margins, slower runs included: its verdict may be off and is not counted; a larger --time-scale gives more room\n",
				"不可信 %s × %s 与时钟的偏差达 %s，放慢重跑后仍超过 %s 的余量：结论可能不准，不计入；可加大 --time-scale\n").In(lang),
				r.Scenario, r.Impl, r.Drift.Round(100*time.Microsecond), r.Margin)
			continue
		}
		if r.Skipped != "" {
			skipped++
			p.printf("%s %s × %s: %s\n", text.New("SKIPPED", "跳过").In(lang), r.Scenario, r.Impl, r.Skipped)
		}
		if r.Error != "" {
			p.printf("%s %s × %s: %s\n", text.New("ERROR", "出错").In(lang), r.Scenario, r.Impl, r.Error)
			continue
		}
		if r.Pass {
			continue
		}
		p.printf("%s %s × %s: %s %s, %s %s\n", text.New("UNMET", "不符合预期").In(lang), r.Scenario, r.Impl,
			text.New("expected", "预期").In(lang), list(r.Expected), text.New("got", "实际").In(lang), list(r.Broken))
	}
	// meet is "N cells meet their expectation", singular for one.
	meet := func(n int) string {
		if n == 1 {
			return "1 cell meets its expectation"
		}
		return fmt.Sprintf("%d cells meet their expectation", n)
	}
	if unjudged == 1 {
		p.printf("%s", text.New(
			"* 1 cell has no expectation (its lesson does not name the implementation): its verdicts shown, not judged\n",
			"* 1 个组合没有预期（课程没有列出该实现）：只显示结论，不做判定\n").In(lang))
	} else if unjudged > 0 {
		p.printf(text.New(
			"* %d cells have no expectation (their lesson does not name the implementation): verdicts shown, not judged\n",
			"* %d 个组合没有预期（课程没有列出该实现）：只显示结论，不做判定\n").In(lang), unjudged)
	}
	if failed == 0 && untrusted > 0 {
		p.printf(text.New("%d of %d cells untrusted (~), none unmet\n", "%d / %d 个组合不可信（~），没有不符合预期的\n").In(lang), untrusted, len(impls)*len(ids))
	} else if failed == 0 && unjudged > 0 {
		have := "have"
		if unjudged == 1 {
			have = "has"
		}
		p.printf(text.New("%s, %d skipped, %d %s none\n", "%[1]s 个组合符合预期，%[2]d 个跳过，%[3]d 个没有预期\n").In(lang),
			text.New(meet(len(impls)*len(ids)-skipped-unjudged), strconv.Itoa(len(impls)*len(ids)-skipped-unjudged)).In(lang), skipped, unjudged, have)
	} else if failed == 0 && skipped > 0 {
		p.printf(text.New("%s, %d skipped\n", "%s 个组合符合预期，%d 个跳过\n").In(lang),
			text.New(meet(len(impls)*len(ids)-skipped), strconv.Itoa(len(impls)*len(ids)-skipped)).In(lang), skipped)
	} else if failed == 0 && len(impls)*len(ids) == 1 {
		p.printf("%s\n", text.New("the 1 cell meets its expectation", "唯一的 1 个组合符合预期").In(lang))
	} else if failed == 0 {
		p.printf(text.New("all %d cells meet their expectation\n", "全部 %d 个组合都符合预期\n").In(lang), len(impls)*len(ids))
	} else {
		p.printf(text.New("%d of %d cells do not meet their expectation\n", "%d / %d 个组合不符合预期\n").In(lang), failed, len(impls)*len(ids))
	}
	return p.err
}

// table writes the cells in blocks of as many columns as fit in
// tableWidth; each block has its own header, and its numbers run on from
// the block above. Why blocks and not a transposed table (implementations as
// rows): the shape stays the same however the catalogue grows (rows are
// failure modes in teaching order, a column is an implementation, and the
// README's prose names columns by number), and transposing would not spare
// the wrapping — implementation names are long, and with a dozen failure
// modes the transposed table is already wider than 80. A row label wider
// than half the table goes on a line of its own, its cells on the next, so
// that one long id does not squeeze every row to a column or two.
// columnKey prints the key to a table's columns, "1 no-lock · 2 …", as many
// to a line as fit.
func columnKey(p *printer, impls []string) {
	line := ""
	for i, name := range impls {
		entry := fmt.Sprintf("%d %s", i+1, name)
		if line != "" && ansi.StringWidth(line+" · "+entry) > tableWidth {
			p.printf("%s\n", ansi.Wrap(line, tableWidth, ""))
			line = ""
		}
		if line != "" {
			line += " · "
		}
		line += entry
	}
	if line != "" {
		p.printf("%s\n", ansi.Wrap(line, tableWidth, ""))
	}
}

func table(p *printer, ids, impls []string, marks map[[2]string]string) {
	if len(impls) == 0 {
		return
	}
	col := 5 // "MOR!" and a space
	for i := range impls {
		col = max(col, len(strconv.Itoa(i+1))+1)
	}
	for _, m := range marks {
		col = max(col, ansi.StringWidth(m)+1)
	}
	label := 0 // the widest id that keeps its cells beside it
	for _, id := range ids {
		if w := ansi.StringWidth(id); w <= tableWidth/2-2 {
			label = max(label, w)
		}
	}
	indent := label + 2
	// A block of k columns is indent + (k-1)·col + its last cell wide, and
	// a cell is narrower than col. Blocks are made even: 12 columns where
	// 11 fit are two blocks of 6, not 11 and 1.
	fit := max(1, (tableWidth-indent+1)/col)
	blocks := (len(impls) + fit - 1) / fit
	per := (len(impls) + blocks - 1) / blocks
	for from := 0; from < len(impls); from += per {
		to := min(from+per, len(impls))
		if from > 0 {
			p.printf("\n")
		}
		line := strings.Repeat(" ", indent)
		for i := from; i < to; i++ {
			line += pad(strconv.Itoa(i+1), col)
		}
		p.printf("%s\n", strings.TrimRight(line, " "))
		for _, id := range ids {
			line := pad(id, indent)
			if ansi.StringWidth(id) > label {
				p.printf("%s\n", ansi.Wrap(id, tableWidth, ""))
				line = strings.Repeat(" ", indent)
			}
			for i := from; i < to; i++ {
				line += pad(marks[[2]string{impls[i], id}], col)
			}
			p.printf("%s\n", strings.TrimRight(line, " "))
		}
	}
}

// pad fills s with spaces to width columns, measured as the terminal shows
// them ("—" is one column but three bytes; a Chinese character is two).
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-ansi.StringWidth(s)))
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

// JSON writes v as indented JSON; a trace with events an event at a time.
func JSON(w io.Writer, v any) error {
	if tr, ok := v.(*trace.Trace); ok && len(tr.Events) > 0 {
		return traceJSON(w, tr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// List writes the scenarios, each with the implementation it opens with,
// and the implementations — the catalogue's, then those in other languages
// (with what this machine lacks to run them): a line for the name, the
// summary below it, wrapped to fit 80 columns.
func List(w io.Writer, lang string) error {
	p := &printer{w: w}
	width := 0
	for _, s := range scenarios.All() {
		width = max(width, len(s.ID))
	}
	const indent = "      "
	summary := func(s string) {
		const width = tableWidth - len(indent)
		// Chinese has no spaces to break at: its punctuation is where a
		// line may end; a line that still overflows is cut.
		wrapped := ansi.Wrap(s, width, "、，；：。）")
		for line := range strings.SplitSeq(wrapped, "\n") {
			if ansi.StringWidth(line) > width {
				line = ansi.Hardwrap(line, width, true)
			}
			for part := range strings.SplitSeq(line, "\n") {
				p.printf("%s%s\n", indent, strings.TrimRight(part, " "))
			}
		}
	}
	p.printf("%s\n", text.New("scenarios (failure modes), each with the implementation it opens with:",
		"场景（故障模式），以及每个场景默认演示的锁实现：").In(lang))
	for _, s := range scenarios.All() {
		p.printf("  %-*s  %s\n", width, s.ID, s.Naive)
		summary(s.Summary.In(lang))
	}
	p.printf("\n%s\n", text.New("implementations:", "锁实现：").In(lang))
	for _, in := range lockimpl.All() {
		p.printf("  %s\n", in.Name)
		summary(in.Summary.In(lang))
	}
	p.printf("\n%s\n", text.New("in other languages (name them with --impl; your own: --impl FILE.py or FILE.js):",
		"其他语言写的锁，原样运行（--impl 点名；自己的锁：--impl 文件.py 或 .js）：").In(lang))
	for _, in := range lockimpl.Others() {
		p.printf("  %s\n", in.Name)
		line := in.Summary.In(lang)
		if err := in.Needs(); err != nil {
			line += text.New(" — not on this machine: ", " —— 本机无法运行：").In(lang) + err.Error()
		}
		summary(line)
	}
	return p.err
}
