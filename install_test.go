package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/modproxy"
)

// installVersion is the version the install test publishes the working
// tree at, in a module proxy of its own.
const installVersion = "v0.9.0"

// skipUnlessInstall keeps the install tests, each a minute or so of
// building, out of the default go test ./...; CI sets LOCKSTEP_INSTALL=1.
func skipUnlessInstall(t *testing.T) {
	t.Helper()
	if os.Getenv("LOCKSTEP_INSTALL") != "1" {
		t.Skip("set LOCKSTEP_INSTALL=1 to install lockstep from a module proxy of the working tree")
	}
}

// TestInstallFromProxy is a user's first hour, offline: the files git
// tracks are published as lockstep v0.9.0 in a file:// module proxy, and
// with a module cache of its own, that proxy and the local module cache's
// downloads as the only sources (no checksum database), a copy of
// examples/mylock without its replace go gets locktest@v0.9.0, then runs
// examples/ci/lockstep.yml's run: steps in order, as printed: go install
// lockstep at the version its go.mod requires, lockstep --version,
// lockstep check, go test ./.... The installed binary must say v0.9.0 and
// the Go that built it.
func TestInstallFromProxy(t *testing.T) {
	skipUnlessInstall(t)
	w := newOffline(t)
	mod := modulePath(readString(t, "go.mod"))
	user := w.userModule(t, mod)
	outputs := make([]string, 0, 4)
	for i, run := range workflowRuns(t) {
		outputs = append(outputs, w.step(t, user, i+1, run))
	}
	want := fmt.Sprintf("lockstep version %s (%s %s/%s)\n", installVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if got := w.run(t, user, filepath.Join(w.bin, "lockstep"), "--version"); got != want {
		t.Errorf("the installed lockstep --version = %q, want %q", got, want)
	}
	if !strings.Contains(readString(t, filepath.Join(user, "go.mod")), "\n\t"+mod+" "+installVersion+"\n") {
		t.Errorf("the user's go.mod does not require %s %s:\n%s", mod, installVersion, readString(t, filepath.Join(user, "go.mod")))
	}
	if junit := readString(t, filepath.Join(user, "lockstep-check.xml")); !strings.Contains(junit, `failures="0" skipped="0"`) {
		t.Errorf("lockstep check --junit: %.300s", junit)
	}
	if last := outputs[len(outputs)-1]; !strings.Contains(last, "ok  \texample.com/mylock") {
		t.Errorf("the user's go test did not pass mylock's locktest.Run tests:\n%s", last)
	}
}

// TestVersionOfAClone builds lockstep as a contributor does, in a git
// clone of this repository's HEAD: go build names the commit, with -dirty
// once the clone has an untracked file, and the release at a tag; go run
// stamps neither, and says devel. Each with the Go that built it.
func TestVersionOfAClone(t *testing.T) {
	skipUnlessInstall(t)
	goOnPath(t)
	clone := filepath.Join(t.TempDir(), "lockstep")
	gitIn(t, ".", "clone", "--quiet", "--no-tags", ".", clone) // a tag of the repository would name HEAD
	rev := strings.TrimSpace(gitIn(t, clone, "rev-parse", "HEAD"))[:12]
	built := func(how string) string {
		return fmt.Sprintf("lockstep version %s (%s %s/%s)\n", how, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	// Offline, the dependencies from the local module cache: through a
	// file:// proxy, not GOPROXY=off, under which go build (1.26.8) stamped
	// the pseudo-version of its build before the tag again after it.
	local := filepath.Join(strings.TrimSpace(goEnv(t, "GOMODCACHE")), "cache", "download")
	w := &offline{env: append(os.Environ(), "GOFLAGS=-buildvcs=auto", "GOTOOLCHAIN=local", "GOWORK=off",
		"GOPROXY=file://"+filepath.ToSlash(local), "GOSUMDB=off")}
	bin := filepath.Join(t.TempDir(), "lockstep") // outside the clone, which it would make dirty
	for _, tc := range []struct {
		name  string
		setup func()
		want  string
	}{
		{"go build, clean", func() {}, built(rev)},
		{"go build, an untracked file", func() { writeTestFile(t, filepath.Join(clone, "notes.txt"), "x\n") }, built(rev + "-dirty")},
		{"go build at the tag " + installVersion, func() {
			os.Remove(filepath.Join(clone, "notes.txt"))
			gitIn(t, clone, "tag", installVersion)
		}, built(installVersion)},
	} {
		tc.setup()
		w.run(t, clone, "go", "build", "-o", bin, ".")
		if got := w.run(t, clone, bin, "--version"); got != tc.want {
			t.Errorf("%s: lockstep --version = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := w.run(t, clone, "go", "run", ".", "--version"); got != built("devel") {
		t.Errorf("go run . --version = %q, want %q", got, built("devel"))
	}
}

// gitIn runs git in dir and returns its stdout.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// offline is a Go environment with no network: a module cache and a
// GOBIN of its own, GOPROXY a file:// proxy of the working tree at
// installVersion, then the local module cache's downloads.
type offline struct {
	bin string   // GOBIN, first on PATH
	env []string // the environment of every command
}

func newOffline(t *testing.T) *offline {
	t.Helper()
	goOnPath(t)
	local := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	tmp := t.TempDir()
	w := &offline{bin: filepath.Join(tmp, "bin")}
	proxy := filepath.Join(tmp, "proxy")
	files, err := modproxy.Tracked(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := modproxy.Write(proxy, ".", files, installVersion, time.Now()); err != nil {
		t.Fatalf("the module proxy of the working tree: %v", err)
	}
	modcache := filepath.Join(tmp, "modcache")
	w.env = append(os.Environ(),
		"GOENV=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off", "CI=true",
		"GOPATH="+filepath.Join(tmp, "gopath"), "GOMODCACHE="+modcache, "GOBIN="+w.bin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(local, "cache", "download")),
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=", "GOINSECURE=",
		"PATH="+w.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The go command makes the module cache read-only; t.TempDir's removal
	// (registered before, so run after) could not remove it.
	t.Cleanup(func() {
		if out, err := w.cmd(tmp, "go", "clean", "-modcache").CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v\n%s", err, out)
		}
	})
	return w
}

// userModule is a copy of examples/mylock as a user's repository has it:
// its lock, its tests and its go.mod and go.sum, without the replace to
// this tree, then go get …/locktest@installVersion.
func (w *offline) userModule(t *testing.T, mod string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mylock")
	for _, name := range []string{"go.mod", "go.sum", "mylock.go", "mylock_test.go"} {
		writeTestFile(t, filepath.Join(dir, name), readString(t, filepath.Join("examples", "mylock", name)))
	}
	w.run(t, dir, "go", "mod", "edit", "-dropreplace="+mod, "-droprequire="+mod)
	w.run(t, dir, "go", "get", mod+"/locktest@"+installVersion)
	return dir
}

// step runs the n-th run: step of the workflow in dir, in the shell GitHub
// Actions runs it in, and returns what it printed.
func (w *offline) step(t *testing.T, dir string, n int, script string) string {
	t.Helper()
	start := time.Now()
	out, err := w.cmd(dir, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("workflow step %d failed: %v\n%s\n%s", n, err, script, out)
	}
	t.Logf("workflow step %d (%.1fs): %s%s", n, time.Since(start).Seconds(), strings.TrimSpace(script), lastLines(string(out), 3))
	return string(out)
}

// lastLines is the last n lines of out, each indented under the step.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "\n\t" + strings.Join(lines, "\n\t")
}

// run runs a command in dir and returns its stdout; it fails the test
// with its stderr.
func (w *offline) run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := w.cmd(dir, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func (w *offline) cmd(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = w.env
	return cmd
}

// goOnPath makes sure the go command on PATH (go test puts its own first)
// is the Go this test was built with, which --version must name.
func goOnPath(t *testing.T) {
	t.Helper()
	if v := strings.TrimSpace(goEnv(t, "GOVERSION")); v != runtime.Version() {
		t.Fatalf("the go on PATH is %s, this test was built by %s", v, runtime.Version())
	}
}

// goEnv is go env NAME in this process's environment.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return string(out)
}

func writeTestFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
