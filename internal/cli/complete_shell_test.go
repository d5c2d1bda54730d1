package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// completionLines are typed into a shell, then TAB; each line must become
// its want. The comma lists are issue #36's: bash inserted nothing there.
var completionLines = []struct{ typed, want string }{
	{"lockstep check --impl uuid-lua,fen", "lockstep check --impl uuid-lua,fenced"},
	{"lockstep check --scenario get-then-del,setnx-", "lockstep check --scenario get-then-del,setnx-no-ex"},
	{"lockstep play get-", "lockstep play get-then-del"},
}

// completionShell is a shell with lockstep's completion loaded. It has a
// directory of its own, dir, also its $HOME, where rc says which file it
// starts with and that file's text (ok false: a library it needs is not
// installed); args are its arguments after its name, env its environment
// beyond HOME, PATH and TERM.
type completionShell struct {
	name   string
	needed bool // missing it (or its library) fails the test under CI=true
	rc     func(dir string) (file, text string, ok bool)
	args   func(rc string) []string
	env    func(dir string) []string
}

var completionShells = []completionShell{
	{
		name: "bash", needed: true,
		rc: func(dir string) (string, string, bool) {
			lib := bashCompletionLib()
			return filepath.Join(dir, "bashrc"), "PS1='$ '\nsource " + lib + "\nsource <(lockstep completion bash)\n", lib != ""
		},
		args: func(rc string) []string { return []string{"--noprofile", "--rcfile", rc, "-i"} },
		env:  func(string) []string { return nil },
	},
	{
		name: "zsh",
		rc: func(dir string) (string, string, bool) {
			return filepath.Join(dir, ".zshrc"), "PS1='$ '\nunsetopt PROMPT_SP\nautoload -U compinit && compinit -u -D\nsource <(lockstep completion zsh)\n", true
		},
		args: func(string) []string { return []string{"-i"} },
		env:  func(dir string) []string { return []string{"ZDOTDIR=" + dir} },
	},
	{
		name: "fish",
		rc: func(dir string) (string, string, bool) {
			// No autosuggestion: its grey text would show a completed line
			// whatever TAB did.
			return filepath.Join(dir, "fish", "config.fish"), "function fish_prompt; echo -n '$ '; end\nset -g fish_greeting\nset -g fish_autosuggestion_enabled 0\nlockstep completion fish | source\n", true
		},
		args: func(string) []string { return []string{"-i"} },
		env:  func(dir string) []string { return []string{"XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir} },
	},
}

// bashCompletionLib is the bash-completion package's script, where Debian,
// a source install and Homebrew put it, or "".
func bashCompletionLib() string {
	for _, f := range []string{"/usr/share/bash-completion/bash_completion", "/usr/local/share/bash-completion/bash_completion", "/opt/homebrew/share/bash-completion/bash_completion"} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return ""
}

// missing skips the test for want of what, or fails it under CI=true when
// CI must have it.
func missing(t *testing.T, needed bool, what string) {
	t.Helper()
	if needed && os.Getenv("CI") == "true" {
		t.Fatalf("%s, and CI=true: CI must install it", what)
	}
	t.Skip(what)
}

// In bash, zsh and fish, with lockstep's completion script loaded, TAB
// completes lesson ids and implementation names, the last name of a comma
// list too: each line becomes the one completionLines want. Each line has
// a shell of its own, in a tmux window; the screen is read until it shows
// the line or a deadline passes.
func TestCompletionInRealShells(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lockstep and starts shells in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		missing(t, true, "tmux is not installed")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "lockstep"), repoRoot).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sh := range completionShells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			path, err := exec.LookPath(sh.name)
			if err != nil {
				missing(t, sh.needed, sh.name+" is not installed")
			}
			dir := t.TempDir()
			rc, text, ok := sh.rc(dir)
			if !ok {
				missing(t, sh.needed, sh.name+"'s completion library is not installed")
			}
			writeShellFile(t, rc, text)
			argv := append([]string{"env", "-i", "HOME=" + dir, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "TERM=screen"}, sh.env(dir)...)
			argv = append(append(argv, path), sh.args(rc)...)
			tm := startTmux(t, len(completionLines), argv)
			deadline := time.Now().Add(10 * time.Second)
			for i, l := range completionLines {
				if !tm.waitLine(t, i, "", deadline) {
					t.FailNow() // no prompt: the shell did not start
				}
				tm.run(t, "send-keys", "-t", tm.window(i), "-l", l.typed)
				tm.run(t, "send-keys", "-t", tm.window(i), "Tab")
			}
			for i, l := range completionLines {
				tm.waitLine(t, i, l.want, deadline)
			}
		})
	}
}

// tmuxServer is a tmux server of the test's own (tmux -S socket, in the
// test's temporary directory, which tmux leaves behind), killed when the
// test ends.
type tmuxServer struct{ socket string }

// startTmux starts a server with windows windows, each running argv.
// remain-on-exit keeps a window whose shell died, to show what it said.
func startTmux(t *testing.T, windows int, argv []string) *tmuxServer {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "tmux.conf")
	writeShellFile(t, conf, "set -g remain-on-exit on\nset -g status off\n")
	tm := &tmuxServer{socket: filepath.Join(dir, "socket")}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.run(t, append([]string{"-f", conf, "new-session", "-d", "-s", "t", "-n", "0", "-x", "200", "-y", "40"}, argv...)...)
	for i := 1; i < windows; i++ {
		tm.run(t, append([]string{"new-window", "-d", "-t", tm.window(i)}, argv...)...)
	}
	return tm
}

func (tm *tmuxServer) window(i int) string { return fmt.Sprintf("t:%d", i) }

func (tm *tmuxServer) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitLine reads window i's screen until its last prompt line is "$ "+want
// (trailing blanks aside) or the deadline passes, and says which it was.
func (tm *tmuxServer) waitLine(t *testing.T, i int, want string, deadline time.Time) bool {
	t.Helper()
	want = strings.TrimRight("$ "+want, " ")
	for {
		screen := tm.run(t, "capture-pane", "-p", "-t", tm.window(i))
		if promptLine(screen) == want {
			return true
		}
		if time.Now().After(deadline) {
			t.Errorf("the line never became %q; the screen:\n%s", want, strings.TrimRight(screen, " \n"))
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// promptLine is the last line of screen that begins with the prompt, "$",
// without its trailing blanks.
func promptLine(screen string) string {
	last := ""
	for line := range strings.Lines(screen) {
		if line = strings.TrimRight(line, " \n"); strings.HasPrefix(line, "$") {
			last = line
		}
	}
	return last
}

// writeShellFile writes text to name, making its directory.
func writeShellFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
