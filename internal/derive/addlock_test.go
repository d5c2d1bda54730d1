package derive

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The lock TestAddALock adds: uuid-lua under another name, in a file of its
// own with its catalogue entry, and one line in the registry.
const (
	copyName = "uuid-lua-copy"
	copyFile = `package lockimpl

import (
	"context"

	"github.com/lockstep-sim/lockstep/text"
)

// UUIDLuaCopy is uuid-lua under another name: the lock CI adds to a scratch
// copy of the tree to see that adding one takes nothing more than this
// file, one registry line and go generate ./....
type UUIDLuaCopy struct {
	env Env
	own owner
}

// uuidLuaCopy is its catalogue entry.
var uuidLuaCopy = Info{
	Name:      "uuid-lua-copy",
	Summary:   text.Text{EN: "uuid-lua under another name", ZH: "换了名字的 uuid-lua"},
	Fixes:     text.Text{EN: "what uuid-lua fixes", ZH: "与 uuid-lua 相同"},
	Misses:    text.Text{EN: "what uuid-lua misses", ZH: "与 uuid-lua 相同"},
	Nodes:     1,
	ClockFree: true,
	New:       func(env Env) Lock { return &UUIDLuaCopy{env: env, own: owner{env: env}} },
}

// TryAcquire sends SET key token NX EX ttl.
func (l *UUIDLuaCopy) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.own.current(), l.env.TTL).Result()
}

// Release runs the compare-and-delete script.
func (l *UUIDLuaCopy) Release(ctx context.Context) error {
	return releaseOwned(ctx, l.env, &l.own)
}
`
)

// Issue #39 item 3: adding a lock is one file and one registry line. In a
// copy of the tree, TestAddALock adds uuid-lua under another name, runs go
// generate ./..., checks that what it wrote is the copy's: a row in each
// lesson the same as uuid-lua's, a column of docs/explore.md's table the
// same as uuid-lua's, and then runs the tests of the packages that read
// the lessons, the catalogue and the files derived from them (the root's,
// scenarios', lockimpl's and report's; LOCKSTEP_ADD_LOCK=all: go test
// ./..., 5 minutes here, too long for CI). The one thing go generate cannot
// write is why the search disagrees with a lesson for the new lock; the
// test writes that line for the copy, as its author would, in
// docs/explore.md. Minutes: LOCKSTEP_ADD_LOCK=1 runs it (.ci/run does).
func TestAddALock(t *testing.T) {
	mode := os.Getenv("LOCKSTEP_ADD_LOCK")
	if mode == "" {
		t.Skip("a scratch copy of the tree, go generate ./... and go test, minutes: LOCKSTEP_ADD_LOCK=1 runs it")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, root, dir)
	addCopyLock(t, dir)
	before := lessonFiles(t, dir)

	start := time.Now()
	out := goIn(t, dir, "generate", "./...")
	t.Logf("go generate ./... in the copy: %s", time.Since(start).Round(time.Second))
	for l := range strings.Lines(out) {
		if strings.Contains(l, "searched") {
			t.Log(strings.TrimSpace(l))
		}
	}
	for name, old := range before {
		checkCopyRow(t, name, old, read(t, filepath.Join(dir, name)))
	}
	checkCopyColumn(t, read(t, filepath.Join(dir, "docs/explore.md")))
	if t.Failed() {
		return
	}
	// Its author's word on the search's disagreements: uuid-lua's.
	explore := filepath.Join(dir, "docs/explore.md")
	doc := strings.Replace(read(t, explore), "\n#### Every lesson\n",
		"\n#### Every lesson\n\n- `"+copyName+"` -MOLR+MOLR: `uuid-lua` under another name: its cells are uuid-lua's, explained where uuid-lua's are.\n", 1)
	if err := os.WriteFile(explore, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs := []string{".", "./internal/cli/", "./scenarios/", "./lockimpl/", "./report/"}
	if mode == "all" {
		pkgs = []string{"./..."}
	}
	start = time.Now()
	goIn(t, dir, append([]string{"test", "-count=1"}, pkgs...)...)
	t.Logf("go test %s in the copy: %s", strings.Join(pkgs, " "), time.Since(start).Round(time.Second))
}

// copyTree copies the module's files, as git lists them (the tracked ones
// and the new ones it does not ignore), from root to dir.
func copyTree(t *testing.T, root, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// addCopyLock writes the copy's file and its registry line, after
// uuid-lua's entry.
func addCopyLock(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "lockimpl/uuid_lua_copy.go"), []byte(copyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	registry := filepath.Join(dir, "lockimpl/registry.go")
	src := read(t, registry)
	i := strings.Index(src, "\t\tName: \"uuid-lua\",\n")
	if i < 0 {
		t.Fatal("registry.go has no entry for uuid-lua")
	}
	end := i + strings.Index(src[i:], "\n\t},\n") + len("\n\t},\n")
	src = src[:end] + "\tuuidLuaCopy,\n" + src[end:]
	if err := os.WriteFile(registry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lessonFiles are the copy's lesson files, by name.
func lessonFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "scenarios/lessons/*.lesson"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no lessons in the copy: %v", err)
	}
	files := map[string]string{}
	for _, name := range names {
		rel, _ := filepath.Rel(dir, name)
		files[rel] = read(t, name)
	}
	return files
}

// checkCopyRow: go generate gave the lesson one line, the copy's row, with
// the invariants of uuid-lua's, right after it.
func checkCopyRow(t *testing.T, name, old, now string) {
	t.Helper()
	oldLines, lines := strings.Split(old, "\n"), strings.Split(now, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), copyName+" ") })
	if i < 1 || len(lines) != len(oldLines)+1 || !slices.Equal(slices.Delete(slices.Clone(lines), i, i+1), oldLines) {
		t.Errorf("%s: go generate did not add exactly one row for %s:\n%s", name, copyName, now)
		return
	}
	want := strings.Fields(lines[i-1])
	if want[0] != "uuid-lua" || !slices.Equal(strings.Fields(lines[i])[1:], want[1:]) {
		t.Errorf("%s: the row %q is not uuid-lua's %q, after it", name, lines[i], lines[i-1])
	}
}

// checkCopyColumn: the copy's column of the agreement table is uuid-lua's,
// in every lesson.
func checkCopyColumn(t *testing.T, doc string) {
	t.Helper()
	_, rest, _ := strings.Cut(doc, AgreeBegin)
	block, _, _ := strings.Cut(rest, AgreeEnd)
	marks, err := ParseAgreement(block)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, mark := range marks {
		if k[1] != copyName {
			continue
		}
		n++
		if lua := marks[[2]string{k[0], "uuid-lua"}]; mark != lua {
			t.Errorf("docs/explore.md: %s × %s is %s, uuid-lua's %s", k[0], copyName, mark, lua)
		}
	}
	if n == 0 {
		t.Errorf("docs/explore.md's table has no column %s", copyName)
	}
}

// goIn runs the go command in dir, without the variables that would make
// the copy's tests the long ones or this one again, and returns its output.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "LOCKSTEP_")
	})
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s in the copy: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
