package derive

import (
	"os"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// The rows insertRows writes are the ones a lesson file has, in its place:
// the first of the catalogue, one in the middle and the last, each taken
// out of 030-get-then-del.lesson and written back.
func TestInsertRowsInCatalogueOrder(t *testing.T) {
	file, err := os.ReadFile("../../" + ExampleFile)
	if err != nil {
		t.Fatal(err)
	}
	src := string(file)
	rows := []Row{
		{Impl: "no-lock", Broken: []string{"mutex", "resource"}},
		{Impl: "uuid-get-del", Broken: []string{"mutex", "ownership", "resource"}},
		{Impl: "uuid-lua", Broken: []string{}},
		{Impl: "redsync-redlock"},
	}
	cut := src
	for _, r := range rows {
		line := "\n    " + r.Impl + " "
		i := strings.Index(cut, line)
		if i < 0 {
			t.Fatalf("the lesson has no row %q", r.Impl)
		}
		end := i + 1 + strings.Index(cut[i+1:], "\n")
		cut = cut[:i] + cut[end:]
	}
	got, err := insertRows([]byte(cut), rows)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != src {
		t.Errorf("insertRows wrote\n%s\nwant\n%s", got, src)
	}
	// A name longer than the block's column keeps two spaces; one the
	// catalogue does not have goes first.
	long := "a-name-longer-than-the-column"
	got, err = insertRows(file, []Row{{Impl: long, Broken: []string{"liveness"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "\nexpect\n    "+long+"  liveness\n    no-lock ") {
		t.Errorf("insertRows put %s elsewhere:\n%s", long, got)
	}
}

// The table docs/explore.md has today is every cell of the catalogue:
// ExploreTable searches none and writes the table as it is.
func TestExploreTableReusesEveryCell(t *testing.T) {
	doc, err := os.ReadFile("../../docs/explore.md")
	if err != nil {
		t.Fatal(err)
	}
	got, done, err := ExploreTable(t.Context(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Cells) > 0 {
		t.Errorf("ExploreTable searched %v; the table has every cell", done.Cells)
	}
	if string(got) != string(doc) {
		t.Error("ExploreTable changed docs/explore.md, whose table has every cell")
	}
}

// A mark the table cannot have is an error, not a cell.
func TestCellOfRefusesAStrangeMark(t *testing.T) {
	for _, mark := range []string{"=", "·", "-R", "+O", "-R+O", "-MR", "+MOR"} {
		if _, err := cellOf("l", "i", mark); err != nil {
			t.Errorf("cellOf(%q): %v", mark, err)
		}
	}
	for _, mark := range []string{"+X", "R", "?", "+O-R"} {
		if _, err := cellOf("l", "i", mark); err == nil {
			t.Errorf("cellOf(%q) took it", mark)
		}
	}
}

// docs/lessons.md quotes 030-get-then-del.lesson as it is: LessonsPage
// leaves the page alone, and a row added to the file is on the page
// after it, without an annotation.
func TestLessonsPageQuotesTheFile(t *testing.T) {
	page, err := os.ReadFile("../../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("../../" + ExampleFile)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LessonsPage(page, file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(page) {
		t.Fatalf("LessonsPage changed docs/lessons.md, which quotes the file:\n%s", got)
	}
	const row = "    redsync-redlock             -\n"
	more := strings.Replace(string(file), row, row+"    my-lock                     mutex\n", 1)
	got, err = LessonsPage(page, []byte(more))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(page), row, row+"    my-lock                     mutex\n", 1); string(got) != want {
		t.Errorf("LessonsPage with a new row wrote\n%s", got)
	}
}

// addTableRows puts a missing row after the nearest name before it, and
// leaves the rows there as they are.
func TestAddTableRows(t *testing.T) {
	doc := "# x\n\n## T\n\n| name | what |\n| --- | --- |\n| `b` | bee, by hand |\n\n## U\n"
	got, err := addTableRows(doc, "## T", []string{"a", "b", "c"}, []string{"| `a` | A |\n", "| `b` | B |\n", "| `c` | C |\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# x\n\n## T\n\n| name | what |\n| --- | --- |\n| `a` | A |\n| `b` | bee, by hand |\n| `c` | C |\n\n## U\n"; got != want {
		t.Errorf("addTableRows:\n%s\nwant\n%s", got, want)
	}
}

// docs/explore.md's table of moves lists every fault's moves as the
// faults' records say (sim.FaultInfos): a fault added, or its doc changed,
// shows there after go generate ./...
func TestMovesTableIsFresh(t *testing.T) {
	doc, err := os.ReadFile("../../docs/explore.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := MovesTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(doc) {
		t.Errorf("docs/explore.md's table of moves is stale: run go generate ./..., which writes it from the faults' records")
	}
	for _, f := range sim.FaultInfos() {
		if f.Moves != "" && !strings.Contains(string(got), "(`--faults "+string(f.Fault)+"`)") {
			t.Errorf("the table of moves has no row for %s", f.Fault)
		}
	}
}
