package modproxy

import (
	"archive/zip"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// A module with an upper-case letter in its path (escaped as !p in the
// proxy) in a git repository: a tracked package, a nested module, a
// vendored package, a tracked file deleted from the work tree, a tracked
// file changed in the work tree, and an untracked one.
func testRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":               "module example.com/Proxied\n\ngo 1.22\n",
		"a.go":                 "package proxied\n",
		"changed.go":           "package proxied\n",
		"deleted.go":           "package proxied\n",
		"sub/go.mod":           "module example.com/Proxied/sub\n",
		"sub/b.go":             "package sub\n",
		"vendor/x.org/v/v.go":  "package v\n",
		"docs/notes.txt":       "notes\n",
		"internal/inner/in.go": "package inner\n",
	} {
		writeFile(t, filepath.Join(root, name), text)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", ".")
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	writeFile(t, filepath.Join(root, "changed.go"), "package proxied // changed\n")
	writeFile(t, filepath.Join(root, "untracked.go"), "package proxied\n")
	if err := os.Remove(filepath.Join(root, "deleted.go")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestTrackedAndWrite(t *testing.T) {
	root := testRepo(t)
	files, err := Tracked(root)
	if err != nil {
		t.Fatal(err)
	}
	wantTracked := []string{"a.go", "changed.go", "docs/notes.txt", "go.mod", "internal/inner/in.go", "sub/b.go", "sub/go.mod", "vendor/x.org/v/v.go"}
	if !slices.Equal(files, wantTracked) {
		t.Errorf("Tracked = %q, want %q (no untracked file, no deleted one)", files, wantTracked)
	}
	dir := t.TempDir()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	m, err := Write(dir, root, files, "v0.9.0", at)
	if err != nil {
		t.Fatal(err)
	}
	if m != (module.Version{Path: "example.com/Proxied", Version: "v0.9.0"}) {
		t.Errorf("Write = %v", m)
	}
	vdir := filepath.Join(dir, "example.com", "!proxied", "@v")
	checkText(t, filepath.Join(vdir, "list"), "v0.9.0\n")
	checkText(t, filepath.Join(vdir, "v0.9.0.info"), `{"Version":"v0.9.0","Time":"2026-12-01T09:00:00Z"}`)
	checkText(t, filepath.Join(vdir, "v0.9.0.mod"), "module example.com/Proxied\n\ngo 1.22\n")
	zipName := filepath.Join(vdir, "v0.9.0.zip")
	if _, err := modzip.CheckZip(m, zipName); err != nil {
		t.Errorf("CheckZip: %v", err)
	}
	got := zipFiles(t, zipName)
	prefix := "example.com/Proxied@v0.9.0/"
	want := map[string]string{
		prefix + "go.mod":               "module example.com/Proxied\n\ngo 1.22\n",
		prefix + "a.go":                 "package proxied\n",
		prefix + "changed.go":           "package proxied // changed\n",
		prefix + "docs/notes.txt":       "notes\n",
		prefix + "internal/inner/in.go": "package inner\n",
	}
	if !maps.Equal(got, want) {
		t.Errorf("zip holds %q\nwant %q (tracked files as in the work tree; no nested module, vendor, untracked or deleted file)", got, want)
	}
}

// A second version joins the first in @v/list; writing one again lists it
// once.
func TestWriteAddsToTheList(t *testing.T) {
	root := testRepo(t)
	files, err := Tracked(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, v := range []string{"v0.9.0", "v0.9.1", "v0.9.0"} {
		if _, err := Write(dir, root, files, v, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	checkText(t, filepath.Join(dir, "example.com", "!proxied", "@v", "list"), "v0.9.0\nv0.9.1\n")
}

// Write refuses what the go command would refuse to fetch: a version that
// is not canonical semver, a major version the module path does not end
// in, a go.mod without a module line, a file outside the module.
func TestWriteRefuses(t *testing.T) {
	root := testRepo(t)
	files, err := Tracked(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, version string
		files         []string
		want          string
	}{
		{"no v", "0.9.0", files, "invalid"},
		{"short", "v0.9", files, "not canonical"},
		{"a build suffix", "v0.9.0+dirty", files, "not canonical"},
		{"major version 2 without /v2", "v2.0.0", files, "should be v0 or v1"},
		{"a file outside", "v0.9.0", append(slices.Clone(files), "../outside.go"), "outside.go"},
	} {
		dir := t.TempDir()
		if _, err := Write(dir, root, tc.files, tc.version, time.Now()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Write(%q) = %v, want an error with %q", tc.name, tc.version, err, tc.want)
		}
	}
	writeFile(t, filepath.Join(root, "go.mod"), "go 1.22\n")
	if _, err := Write(t.TempDir(), root, files, "v0.9.0", time.Now()); err == nil || !strings.Contains(err.Error(), "no module line") {
		t.Errorf("a go.mod without a module line: Write = %v", err)
	}
}

// The go command itself fetches the version from the proxy, with a module
// cache of its own and no other proxy: by its version and as @latest (from
// @v/list), checking the zip against the .mod and the version it asked for.
func TestGoDownloadsFromTheProxy(t *testing.T) {
	root := testRepo(t)
	files, err := Tracked(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Write(dir, root, files, "v0.9.0", time.Now()); err != nil {
		t.Fatal(err)
	}
	modcache := t.TempDir()
	t.Cleanup(func() { cleanModcache(t, modcache) })
	for _, query := range []string{"v0.9.0", "latest"} {
		var got struct{ Version, Dir, Error string }
		out := goCmd(t, modcache, dir, "mod", "download", "-json", "example.com/Proxied@"+query)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("go mod download @%s: %v\n%s", query, err, out)
		}
		if got.Error != "" || got.Version != "v0.9.0" {
			t.Errorf("go mod download @%s: version %q, error %q", query, got.Version, got.Error)
		}
		checkText(t, filepath.Join(got.Dir, "changed.go"), "package proxied // changed\n")
	}
}

// goCmd runs go with a module cache of its own and only the proxy at dir,
// no checksum database, no configuration file, and returns its stdout.
func goCmd(t *testing.T, modcache, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOENV=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off",
		"GOMODCACHE="+modcache, "GOPROXY=file://"+filepath.ToSlash(dir), "GOSUMDB=off", "GOPRIVATE=", "GONOPROXY=")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// cleanModcache removes a module cache, whose files the go command made
// read-only (t.TempDir's own removal would fail on them).
func cleanModcache(t *testing.T, modcache string) {
	cmd := exec.Command("go", "clean", "-modcache")
	cmd.Env = append(os.Environ(), "GOENV=off", "GOMODCACHE="+modcache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go clean -modcache: %v\n%s", err, out)
	}
}

func zipFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	r, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string]string{}
	for _, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	return files
}

func checkText(t *testing.T, name, want string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Error(err)
		return
	}
	if string(b) != want {
		t.Errorf("%s = %q, want %q", name, b, want)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
