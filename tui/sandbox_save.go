package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/text"
)

// This file saves the sandbox's schedule as a trace file: the format
// explore --out writes, with the schedule that makes the run again, so that
// lockstep --trace FILE and lockstep play --trace FILE replay it (and check
// that it ends the same way). The note after a save names the command as
// the user runs lockstep: go run . --trace FILE, say.

// sandboxMsg is a message for the sandbox: the answer of a hint search, the
// outcome of a save.
type sandboxMsg interface{ forSandbox() }

func (hintMsg) forSandbox()  {}
func (savedMsg) forSandbox() {}

// savedMsg says where w wrote the trace, or why it could not.
type savedMsg struct {
	path string // absolute
	err  error
}

// update takes a message for the sandbox.
func (v *sandboxView) update(msg sandboxMsg) {
	switch msg := msg.(type) {
	case hintMsg:
		v.arrived(msg)
	case savedMsg:
		if msg.err != nil {
			v.note = text.Newf("could not save the trace: %v", "无法保存记录：%v", msg.err)
			return
		}
		// The command first: on a small screen the status is cut at its
		// end. The whole path: the file is not in the working directory.
		v.note = text.Newf("saved: %s --trace %s replays it",
			"已保存：%s --trace %s 可以重放", v.command, tilde(msg.path))
	}
}

// saveTrace is the trace the sandbox saves: the run so far, with its
// schedule (the explorer's world: two clients, one attempt each, the
// sandbox's fault set).
func (v *sandboxView) saveTrace() *trace.Trace {
	tr := v.st.Trace()
	moves := v.schedule()
	tr.Schedule = &trace.Schedule{Clients: 2, Attempts: 1, Faults: faultSets[v.faults], Moves: moves}
	tr.Title = text.Newf("Sandbox: %s, %d moves", "沙盒：%s，%d 步", v.impl.Name, len(moves))
	return tr
}

// saveDir is where w saves: LOCKSTEP_SANDBOX_DIR when it is set, else
// lockstep in the user's state directory ($XDG_STATE_HOME, or
// ~/.local/state), else lockstep-sandbox in the system's temporary
// directory. Not the working directory: it is often a checkout, which the
// files would litter.
func saveDir() (string, error) {
	if d := os.Getenv("LOCKSTEP_SANDBOX_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "lockstep"), nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "lockstep"), nil
	}
	return filepath.Join(os.TempDir(), "lockstep-sandbox"), nil
}

// tilde is path with the home directory as ~, which a shell expands: a
// path short enough for a status line, that still pastes into a command.
func tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || filepath.Separator != '/' {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return path
}

// save writes tr in saveDir as sandbox-IMPL-N-moves.json, or with -2, -3, …
// before .json when that name is taken: it never overwrites a file.
func save(tr *trace.Trace) tea.Cmd {
	return func() tea.Msg {
		b, err := json.MarshalIndent(tr, "", "  ") // as explore --out writes it
		if err != nil {
			return savedMsg{err: err}
		}
		b = append(b, '\n')
		dir, err := saveDir()
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			return savedMsg{err: err}
		}
		base := filepath.Join(dir, fmt.Sprintf("sandbox-%s-%d-moves", tr.Impl, len(tr.Schedule.Moves)))
		for i := 1; i <= 1000; i++ {
			name := base + ".json"
			if i > 1 {
				name = fmt.Sprintf("%s-%d.json", base, i)
			}
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return savedMsg{err: err}
			}
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(name)
				return savedMsg{err: fmt.Errorf("write %s: %w", name, err)}
			}
			return savedMsg{path: name}
		}
		return savedMsg{err: fmt.Errorf("%s.json and a thousand more names are taken", base)}
	}
}
