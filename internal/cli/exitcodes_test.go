package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// exitCase is one command line and the exit code the built binary gives
// it; cmd is the README's name for the command (its exit-code table's
// first column).
type exitCase struct {
	cmd  string
	args []string
	code int
}

// exitCases give every exit code of every command the README's table
// lists. unmet is a lesson directory whose one lesson expects uuid-lua to
// break mutex (it does not).
func exitCases(unmet string) []exitCase {
	return []exitCase{
		{"lockstep check", []string{"check", "--scenario", "get-then-del", "--impl", "uuid-get-del,uuid-lua"}, 0},
		{"lockstep check", []string{"check", "--lessons", unmet, "--impl", "uuid-lua"}, 1},
		{"lockstep check", []string{"check", "--impl", "nope"}, 2},
		{"lockstep play", []string{"play", "get-then-del"}, 0},
		{"lockstep play", []string{"play", "--lesson", filepath.Join(unmet, "unmet.lesson"), "--impl", "uuid-lua"}, 1},
		{"lockstep play", []string{"play", "get-then-dle"}, 2},
		{"lockstep explore", []string{"explore", "--impl", "uuid-lua", "--depth", "4"}, 0},
		{"lockstep explore", []string{"explore", "--impl", "uuid-get-del"}, 1},
		{"lockstep explore", []string{"explore"}, 2},
		{"every other command", []string{"list"}, 0},
		{"every other command", []string{"--version"}, 0},
		{"every other command", []string{"lessons", "show", "get-then-del"}, 0},
		{"every other command", []string{"completion", "bash"}, 0},
		{"every other command", []string{"help", "play"}, 0},
		{"every other command", []string{"list", "extra"}, 2},
		{"every other command", []string{"lessons", "show", "nope"}, 2},
		{"every other command", []string{"completion", "tcsh"}, 2},
		{"every other command", []string{"docs"}, 2},
		{"every other command", []string{"bench"}, 2},
		{"every other command", []string{"clean"}, 2},
		{"every other command", []string{"monitor"}, 2},
		{"every other command", []string{"--no-such-flag"}, 2},
	}
}

// The exit codes a CI reads, through the built binary (go run turns every
// non-zero exit into 1): each command gives each code its row in the
// README's table lists, and no other.
func TestExitCodesOfTheBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lockstep")
	}
	table := readmeExitCodes(t)
	bin := filepath.Join(t.TempDir(), "lockstep")
	if out, err := exec.Command("go", "build", "-o", bin, repoRoot).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seen := map[string][]int{}
	for _, c := range exitCases(unmetLessonDir(t)) {
		code := exitCode(t, bin, c.args)
		if code != c.code {
			t.Errorf("lockstep %s: exit %d, want %d", strings.Join(c.args, " "), code, c.code)
		}
		if !slices.Contains(table[c.cmd], code) {
			t.Errorf("lockstep %s: exit %d, which the README's row for %s does not list (%v)", strings.Join(c.args, " "), code, c.cmd, table[c.cmd])
		}
		seen[c.cmd] = append(seen[c.cmd], code)
	}
	for cmd, codes := range table {
		for _, code := range codes {
			if cmd == "lockstep check" && code == exitUntrusted {
				continue // real servers whose runs drift: TestCheckCode, realredis's TestRealUntrustedCellIsNotAPass
			}
			if !slices.Contains(seen[cmd], code) {
				t.Errorf("the README lists exit %d for %s, and no case here gives it", code, cmd)
			}
		}
	}
}

// exitCode runs bin with args and returns its exit code.
func exitCode(t *testing.T, bin string, args []string) int {
	t.Helper()
	err := exec.Command(bin, args...).Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("lockstep %s: %v", strings.Join(args, " "), err)
	return -1
}

// unmetLessonDir writes get-then-del with an expectation it does not meet:
// uuid-lua breaks mutex.
func unmetLessonDir(t *testing.T) string {
	t.Helper()
	src := mustRun(t, "lessons", "show", "get-then-del")
	row := regexp.MustCompile(`(?m)^(    uuid-lua +)-$`)
	if !row.MatchString(src) {
		t.Fatalf("get-then-del's expect block has no uuid-lua row of -:\n%s", src)
	}
	dir := t.TempDir()
	lesson := row.ReplaceAllString(src, "${1}mutex")
	if err := os.WriteFile(filepath.Join(dir, "unmet.lesson"), []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readmeExitCodes reads the README's exit-code table: for each command (its
// first column), the codes whose cells are not "—".
func readmeExitCodes(t *testing.T) map[string][]int {
	t.Helper()
	readme := readString(t, "README.md")
	_, section, ok := strings.Cut(readme, "\n### Exit codes\n")
	if !ok {
		t.Fatal("README.md has no section ### Exit codes")
	}
	table := map[string][]int{}
	for line := range strings.SplitSeq(section, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 5 || strings.HasPrefix(cells[0], "command") || strings.HasPrefix(cells[0], "---") {
			continue
		}
		cmd := cells[0]
		if i := strings.Index(cmd, " ("); i >= 0 {
			cmd = cmd[:i]
		}
		cmd = strings.Trim(cmd, "`")
		for code, cell := range cells[1:] {
			if cell != "—" {
				table[cmd] = append(table[cmd], code)
			}
		}
	}
	if len(table) == 0 {
		t.Fatal("README.md's ### Exit codes has no table rows")
	}
	return table
}

// check's exit code: 1 when a cell is unmet, whatever else; 3 when no cell
// is unmet but one is untrusted (#37 item 11: a verdict lockstep does not
// trust is not a pass); 0 otherwise; cells that could not run are counted.
func TestCheckCode(t *testing.T) {
	pass, unmet := scenarios.Result{Pass: true}, scenarios.Result{}
	untrusted, failed := scenarios.Result{Untrusted: true}, scenarios.Result{Error: "could not run"}
	for _, tc := range []struct {
		name    string
		results []scenarios.Result
		code    int
		errored int
	}{
		{"all met", []scenarios.Result{pass, pass}, exitOK, 0},
		{"untrusted", []scenarios.Result{pass, untrusted}, exitUntrusted, 0},
		{"untrusted and unmet", []scenarios.Result{untrusted, unmet, pass}, exitUnmet, 0},
		{"unmet and untrusted", []scenarios.Result{unmet, untrusted}, exitUnmet, 0},
		{"errors", []scenarios.Result{failed, pass, failed}, exitOK, 2},
	} {
		if code, errored := checkCode(tc.results); code != tc.code || errored != tc.errored {
			t.Errorf("%s: checkCode = %d, %d errored; want %d, %d", tc.name, code, errored, tc.code, tc.errored)
		}
	}
}
