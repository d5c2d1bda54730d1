package web

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// index is the site's front page: what the course is, and a row per
// lesson with its title, what happens, the implementation it is about and
// the implementations whose run breaks an invariant.
func (s Site) index(lessons []scenarios.Scenario) string {
	var b strings.Builder
	b.WriteString(both("h1", text.New("lockstep: Redis distributed locks, broken on purpose, step by step",
		"lockstep：Redis 分布式锁，故意弄坏，一步一步看")))
	b.WriteString(both("p", text.New(introEN, introZH)))
	b.WriteString(both("p", text.New(keysEN, keysZH)))
	b.WriteString(`<div class="scroll"><table class="lessons" role="table"><thead role="rowgroup"><tr role="row">`)
	for _, h := range lessonColumns {
		if h.EN == h.ZH {
			b.WriteString(`<th role="columnheader">` + html.EscapeString(h.EN) + "</th>")
			continue
		}
		b.WriteString(`<th role="columnheader">` + both("span", h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody role=\"rowgroup\">\n")
	for i, l := range lessons {
		s.lessonRow(&b, i+1, l)
	}
	b.WriteString("</tbody></table></div>\n")
	b.WriteString(both("p", text.New(outroEN, outroZH)))
	return b.String()
}

// lessonColumns are the index's columns.
var lessonColumns = []text.Text{{EN: "#", ZH: "#"}, {EN: "lesson", ZH: "课程"}, {EN: "what happens", ZH: "发生了什么"},
	{EN: "about", ZH: "针对"}, {EN: "broken by", ZH: "被破坏的实现"}}

// cell opens a cell of the index's column i: labelled with the column's
// name, which a narrow screen shows (player.css).
func cell(i int, class string) string {
	h := lessonColumns[i]
	out := `<td role="cell" data-label="` + html.EscapeString(h.EN) + `"`
	if h.ZH != h.EN {
		out += ` data-label-zh="` + html.EscapeString(h.ZH) + `"`
	}
	if class != "" {
		out += ` class="` + class + `"`
	}
	return out + ">"
}

func (s Site) lessonRow(b *strings.Builder, n int, l scenarios.Scenario) {
	page := l.ID + ".html"
	fmt.Fprintf(b, `<tr role="row" data-lesson="%s">%s%d</td>%s<a href="%s" data-page="%s"><code>%s</code></a><br>%s</td>%s%s</td>%s<code>%s</code></td>%s`,
		html.EscapeString(l.ID), cell(0, ""), n, cell(1, ""), page, page, html.EscapeString(l.ID), both("span", l.Title),
		cell(2, ""), both("span", l.Summary), cell(3, ""), html.EscapeString(l.Naive), cell(4, "chips"))
	var broken []*trace.Trace
	traces := s.traces(l)
	for _, tr := range traces {
		if len(tr.Broken()) > 0 {
			broken = append(broken, tr)
		}
	}
	if len(broken) == 0 {
		b.WriteString(both("span", text.New("none: every implementation keeps every invariant", "没有：每种实现都守住了所有不变量")))
	}
	for _, tr := range broken {
		link := page + "#impl=" + tr.Impl
		fmt.Fprintf(b, `<a href="%s" data-page="%s" title="%s"><code class="broke">✗ %s</code></a> `,
			html.EscapeString(link), html.EscapeString(link), html.EscapeString(strings.Join(tr.Broken(), ", ")), html.EscapeString(tr.Impl))
	}
	fmt.Fprintf(b, "<small>(%d/%d)</small></td></tr>\n", len(broken), len(traces))
}

// selfCheck is docs/self-check.md, and its Chinese (the one docs --lang zh
// writes, report/selfcheck.go), with the links to the lessons' pages.
func (s Site) selfCheck(lessons []scenarios.Scenario) (string, error) {
	zh, err := report.DocPagesIn(s.Results, "zh")
	if err != nil {
		return "", err
	}
	return selfCheckPage(s.SelfCheck, string(zh["self-check.md"]), lessons), nil
}

func selfCheckPage(en, zh string, lessons []scenarios.Scenario) string {
	link := func(href string) (string, bool) {
		id, ok := strings.CutSuffix(href, ".md")
		if !ok || !slices.ContainsFunc(lessons, func(l scenarios.Scenario) bool { return l.ID == id }) {
			return "", false
		}
		return id + ".html", true
	}
	return `<div lang="en" class="alt">` + Markdown(en, link) + "</div>\n" +
		`<div lang="zh-Hans" class="alt">` + behind(en, zh) + Markdown(zh, link) + "</div>\n"
}

var mdLink = regexp.MustCompile(`\]\(([^)]*)\.md\)`)

// behind says, above the Chinese self-check, which lessons the English
// names and the translation does not: a row added to docs/self-check.md
// shows in Chinese as a pointer to the English page until the translation
// has it.
func behind(en, zh string) string {
	var missing []string
	for _, m := range mdLink.FindAllStringSubmatch(en, -1) {
		if !strings.Contains(zh, "]("+m[1]+".md)") && !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "<p class=\"warn\">中文版还没有英文版的全部内容：缺少 <code>" + html.EscapeString(strings.Join(missing, "</code>、<code>")) +
		"</code> 等课程；完整的清单请切换到 English。</p>\n"
}

const introEN = `Each lesson is one scripted timeline: clients A, B, C take a Redis lock, work on the stock of product 1001, and something goes wrong — a pause, an expiry, a failover. The timeline is the same for every lock implementation; the implementation decides the outcome. Open a lesson, step through it, and watch the invariant break at its step; pick another implementation, or compare two side by side.`

const introZH = `每一课都是一条脚本化的时间线：客户端 A、B、C 获取一把 Redis 锁，修改商品 1001 的库存，然后出点事——一次停顿、一次过期、一次故障转移。时间线对每种锁实现都一样，结果由实现决定。打开一课，一步一步看，在不变量被破坏的那一步停下；换一种实现，或者把两种并排对比。`

const keysEN = `In a lesson: → or l steps, ← or h goes back, space plays, v jumps to the next violation, c compares with the lesson's fix, d jumps to where the two differ, i switches the implementation, L switches English/中文. The address follows the step (#step=33): send it, and the page opens there.`

const keysZH = `在课程页里：→ 或 l 下一步，← 或 h 上一步，空格播放，v 跳到下一个违规，c 与本课的修复对比，d 跳到两者的首次分歧，i 切换实现，L 切换 English/中文。地址会跟着步骤变化（#step=33）：把它发给别人，页面就会在那一步打开。`

const outroEN = `The same pages offline: lockstep site DIR writes this site; lockstep play LESSON --impl NAME --format html writes one lesson's page, a single file. The terminal UI is lockstep itself.`

const outroZH = `离线使用同样的页面：lockstep site DIR 写出整个网站；lockstep play LESSON --impl NAME --format html 写出一课的页面，单个文件。终端界面就是 lockstep 本身。`
