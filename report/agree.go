package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/text"
)

// AgreeMark is a cell of lockstep check --explore's table: "=" when the
// search broke exactly what the lesson breaks, else what it missed ("-R":
// the lesson breaks resource, the search did not) and what it found beyond
// ("+O"); "·" when the lesson has no expectation for the implementation.
func AgreeMark(a scenarios.Agreement) string {
	switch {
	case !a.Judged:
		return "·"
	case a.Agrees():
		return "="
	}
	var b strings.Builder
	if len(a.Missing) > 0 {
		b.WriteString("-" + abbreviate(a.Missing))
	}
	if len(a.Extra) > 0 {
		b.WriteString("+" + abbreviate(a.Extra))
	}
	return b.String()
}

// Agreement prints lockstep check --explore's table: a row per lesson, a
// column per implementation, each cell's AgreeMark; then the key, each
// lesson's search, and the count.
func Agreement(w io.Writer, cells []scenarios.Agreement, lessons []scenarios.Scenario, lang string) error {
	p := &printer{w: w}
	var ids, impls []string
	marks := map[[2]string]string{}
	for _, a := range cells {
		if !slices.Contains(ids, a.Scenario) {
			ids = append(ids, a.Scenario)
		}
		if !slices.Contains(impls, a.Impl) {
			impls = append(impls, a.Impl)
		}
		marks[[2]string{a.Impl, a.Scenario}] = AgreeMark(a)
	}
	table(p, ids, impls, marks)
	p.printf("\n")
	columnKey(p, impls)
	p.printf("%s\n", ansi.Wrap(text.New(
		"= the search breaks what the lesson breaks · -X the lesson breaks X, the search does not · +X the search breaks X, the lesson does not · M mutex · O ownership · L liveness · R resource",
		"= 搜索破坏的与课程相同 · -X 课程破坏了 X，搜索没有 · +X 搜索破坏了 X，课程没有 · M 互斥 · O 归属 · L 活性 · R 资源").In(lang), tableWidth, ""))
	p.printf("\n%s\n", text.New("Each lesson's search:", "每课的搜索：").In(lang))
	for _, s := range lessons {
		if !slices.Contains(ids, s.ID) {
			continue
		}
		q := s.Search
		faults := make([]string, len(q.Faults))
		for i, f := range q.Faults {
			faults[i] = string(f)
		}
		desc := fmt.Sprintf("%s: %s, %s, %s, %s, liveness %s", s.ID, strings.Join(faults, "+"),
			text.Count(q.Clients, "client", "clients"), text.Count(q.Attempts, "attempt", "attempts"),
			text.Count(q.Depth, "move", "moves"), q.Liveness)
		if lang == "zh" {
			desc = fmt.Sprintf("%s：%s，%d 个客户端，%d 次尝试，%d 步，活性界限 %s", s.ID, strings.Join(faults, "+"),
				q.Clients, q.Attempts, q.Depth, q.Liveness)
		}
		if q.Nodes != 0 && q.Nodes != explore.DefaultNodes {
			desc += text.New(fmt.Sprintf(", Redlock on %d servers", q.Nodes), fmt.Sprintf("，Redlock 使用 %d 个节点", q.Nodes)).In(lang)
		}
		if g := s.Setup.Guard; g != "" {
			desc += text.New(", guard ", "，守卫 ").In(lang) + string(g)
		}
		if q.Reenter {
			desc += text.New(", nested acquire", "，嵌套加锁").In(lang)
		}
		if q.Check {
			desc += text.New(", a check before each write", "，每次写入前先检查").In(lang)
		}
		if q.Readers > 0 {
			desc += text.New(fmt.Sprintf(", %d readers", q.Readers), fmt.Sprintf("，%d 个读者", q.Readers)).In(lang)
		}
		if q.Lease > 0 {
			desc += text.New(", each client's own lease ", "，客户端自己传入租约 ").In(lang) + q.Lease.String()
		}
		if len(q.Lacks) > 0 {
			desc += text.New("; no move for ", "；没有对应的动作：").In(lang) + strings.Join(q.Lacks, ", ")
		}
		// Two spaces in, four for the lines a long one wraps onto.
		for i, line := range strings.Split(ansi.Wrap(desc, tableWidth-4, ""), "\n") {
			p.printf("%s%s\n", strings.Repeat("  ", min(i, 1)+1), line)
		}
	}
	agree, judged := 0, 0
	for _, a := range cells {
		if a.Judged {
			judged++
			if a.Agrees() {
				agree++
			}
		}
	}
	p.printf("\n%s\n", fmt.Sprintf(text.New(
		"%d of %d cells agree; docs/explore.md explains every other",
		"%d / %d 格一致；其余每一格的原因见 docs/explore.md").In(lang), agree, judged))
	return p.err
}
