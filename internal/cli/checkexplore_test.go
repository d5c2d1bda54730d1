package cli

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The agreement table in docs/explore.md sits between these lines.
const (
	agreeBegin = "<!-- go run . check --explore: begin -->\n```\n"
	agreeEnd   = "```\n<!-- go run . check --explore: end -->"
)

// agreeBlock returns docs/explore.md, and the agreement table in it.
func agreeBlock(t *testing.T) (doc, block string) {
	t.Helper()
	data, err := os.ReadFile(repoPath("docs/explore.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc = string(data)
	_, rest, ok := strings.Cut(doc, agreeBegin)
	if !ok {
		t.Fatalf("docs/explore.md has no %q", agreeBegin)
	}
	block, _, ok = strings.Cut(rest, agreeEnd)
	if !ok {
		t.Fatalf("docs/explore.md has no %q", agreeEnd)
	}
	return doc, block
}

// The table in docs/explore.md is what lockstep check --explore prints
// today. Its searches take minutes: CI runs this test on its own
// (LOCKSTEP_EXPLORE_TABLE=1), beside the steps that wait on npm, real
// servers and tmux;
// LOCKSTEP_WRITE_EXPLORE_TABLE=1 writes the table afresh.
func TestExploreTableIsFresh(t *testing.T) {
	write := os.Getenv("LOCKSTEP_WRITE_EXPLORE_TABLE") == "1"
	if rows := os.Getenv("LOCKSTEP_EXPLORE_ROWS"); rows != "" && !write {
		exploreRowsAreFresh(t, strings.Split(rows, ","))
		return
	}
	if os.Getenv("LOCKSTEP_EXPLORE_TABLE") != "1" && !write {
		t.Skip("every lesson's search, minutes: LOCKSTEP_EXPLORE_TABLE=1 runs it (LOCKSTEP_EXPLORE_ROWS=ID,… some lessons' rows)")
	}
	wholeMatrix(t)
	got := mustRun(t, "check", "--explore")
	doc, block := agreeBlock(t)
	if write {
		doc = strings.Replace(doc, agreeBegin+block+agreeEnd, agreeBegin+got+agreeEnd, 1)
		if err := os.WriteFile(repoPath("docs/explore.md"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if block != got {
		t.Errorf("docs/explore.md's agreement table is stale: %s\nnow:\n%s", refreshTable(tableRows(block), tableRows(got)), got)
	}
}

// exploreRowsAreFresh checks the rows of the lessons ids in docs/explore.md's
// agreement table against check --explore --scenario ids: the part of the
// table CI has the time to search afresh (.ci/run).
func exploreRowsAreFresh(t *testing.T, ids []string) {
	wholeMatrix(t)
	got := mustRun(t, "check", "--explore", "--scenario", strings.Join(ids, ","))
	_, block := agreeBlock(t)
	want, now := tableRows(block), tableRows(got)
	for _, id := range ids {
		if want[id] == "" {
			t.Errorf("docs/explore.md's agreement table has no row %q: run go generate ./..., which searches the cells the table lacks", id)
		} else if now[id] != want[id] {
			t.Errorf("docs/explore.md's agreement table is stale in row %s: it says\n  %s\ncheck --explore says\n  %s\n%s", id, want[id], now[id],
				refreshTable(map[string]string{id: want[id]}, map[string]string{id: now[id]}))
		}
	}
}

// tableRows reads an agreement table (report.Agreement's text) into each
// lesson's marks, from every block of columns, joined by spaces: the rows
// of a table of some lessons and of the whole table compare, whatever the
// width of their first column.
func tableRows(table string) map[string]string {
	id := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	mark := regexp.MustCompile(`^(=|·|([-+][MOLR]+)+)$`)
	rows := map[string]string{}
lines:
	for line := range strings.Lines(table) {
		f := strings.Fields(line)
		if len(f) < 2 || !id.MatchString(f[0]) {
			continue
		}
		for _, m := range f[1:] {
			if !mark.MatchString(m) {
				continue lines
			}
		}
		rows[f[0]] = strings.TrimSpace(rows[f[0]] + " " + strings.Join(f[1:], " "))
	}
	return rows
}

// tableRows takes each lesson's marks from every block of columns, and no
// line that is not a row: a stale mark in any block is a difference.
func TestTableRows(t *testing.T) {
	table := "                1    2\noversell        =    +O\nfailover        -R+O =\n\n                3\noversell        +M\nfailover        =\n\n1 no-lock · 2 local-mutex · 3 setnx\ndoes not · +X the search breaks X\nall 6 cells agree\n"
	got := tableRows(table)
	want := map[string]string{"oversell": "= +O +M", "failover": "-R+O = ="}
	if len(got) != len(want) {
		t.Fatalf("tableRows: %q, want %q", got, want)
	}
	for id, marks := range want {
		if got[id] != marks {
			t.Errorf("tableRows[%s] = %q, want %q", id, got[id], marks)
		}
	}
}

// Every disagreement in the table is explained under "Why they disagree":
// in the lesson's own section (#### `ID`), which names the implementation,
// or, for a cause that holds in every lesson, in the section "Every lesson",
// by a line "- `IMPL` +X …" that gives the implementation and the mark.
func TestExploreDisagreementsExplained(t *testing.T) {
	doc, block := agreeBlock(t)
	_, why, ok := strings.Cut(doc, "\n### Why they disagree\n")
	if !ok {
		t.Fatal(`docs/explore.md has no section "### Why they disagree"`)
	}
	if i := strings.Index(why, "\n## "); i >= 0 {
		why = why[:i]
	}
	sections := map[string]string{}
	for _, part := range strings.Split(why, "\n#### ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		if head == "Every lesson" {
			sections[""] = body
		}
		for _, id := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(head, -1) {
			sections[id[1]] += body
		}
	}
	// general[impl] are the marks the section "Every lesson" explains.
	general := map[string]string{}
	for line := range strings.Lines(sections[""]) {
		if m := regexp.MustCompile("^- `([a-z0-9-]+)` ((?:[-+][MOLR]+)+)").FindStringSubmatch(line); m != nil {
			general[m[1]] += m[2]
		}
	}
	explained := func(impl, sign string, letter rune) bool {
		for _, m := range regexp.MustCompile(`[-+][MOLR]+`).FindAllString(general[impl], -1) {
			if m[:1] == sign && strings.ContainsRune(m[1:], letter) {
				return true
			}
		}
		return false
	}
	// The table: column numbers, then a row per lesson, in blocks.
	var cols []string
	names := lockimpl.Names()
	cells := 0
	for line := range strings.Lines(block) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			cols = nil
		case cols == nil && regexp.MustCompile(`^[0-9]+$`).MatchString(fields[0]):
			cols = fields
		case cols != nil && len(fields) == len(cols)+1:
			id := fields[0]
			for i, mark := range fields[1:] {
				cells++
				if mark == "=" || mark == "·" {
					continue
				}
				n, _ := strconv.Atoi(cols[i])
				impl := names[n-1]
				if strings.Contains(sections[id], "`"+impl+"`") {
					continue
				}
				for _, part := range regexp.MustCompile(`[-+][MOLR]+`).FindAllString(mark, -1) {
					for _, letter := range part[1:] {
						if !explained(impl, part[:1], letter) {
							t.Errorf("docs/explore.md: %s × %s is %s, and nothing explains %s%c: name `%s` in the section #### `%s`, or add \"- `%s` %s%c …\" to the section \"Every lesson\"",
								id, impl, mark, part[:1], letter, impl, id, impl, part[:1], letter)
						}
					}
				}
			}
		}
	}
	if want := len(scenarios.IDs()) * len(names); cells != want {
		t.Errorf("read %d cells from the table, want %d: run go generate ./..., which searches the cells the table lacks (or has its layout changed?)", cells, want)
	}
}

// check --explore from the command line: a cell per lesson and
// implementation asked for, and a clear refusal of real servers.
func TestCheckExplore(t *testing.T) {
	out := mustRun(t, "check", "--explore", "--scenario", "reentrant-call", "--impl", "uuid-lua,reentrant")
	for _, want := range []string{"reentrant-call  =    =", "reentrant-call: expiry, 2 clients, 1 attempt, 12 moves, liveness 10s, nested\n    acquire", "2 of 2 cells agree"} {
		if !strings.Contains(out, want) {
			t.Errorf("check --explore: no %q in\n%s", want, out)
		}
	}
	code, _, stderr := runCLI(t, "check", "--explore", "--redis", "127.0.0.1:1")
	if code != exitUsage || !strings.Contains(stderr, "--explore searches on embedded servers only") {
		t.Errorf("check --explore --redis: exit %d, stderr %q", code, stderr)
	}
}
