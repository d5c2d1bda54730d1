package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"lockstep/scenarios/sim"
	"lockstep/text"
)

// This file saves the sandbox's schedule as a trace file: the format
// explore --out writes, with the schedule that makes the run again, so that
// lockstep --trace FILE and lockstep play --trace FILE replay it (and check
// that it ends the same way).

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
		// end.
		name, dir := filepath.Base(msg.path), filepath.Dir(msg.path)
		v.note = text.Newf("saved: lockstep --trace %s replays it (the file is in %s)",
			"已保存：lockstep --trace %s 可以重放（文件在 %s）", name, dir)
	}
}

// saveTrace is the trace the sandbox saves: the run so far, with its
// schedule (the explorer's world: two clients, one attempt each, the
// sandbox's fault set).
func (v *sandboxView) saveTrace() *sim.Trace {
	tr := v.st.Trace()
	moves := v.schedule()
	tr.Schedule = &sim.Schedule{Clients: 2, Attempts: 1, Faults: faultSets[v.faults], Moves: moves}
	tr.Title = text.Newf("Sandbox: %s, %d moves", "沙盒：%s，%d 步", v.impl.Name, len(moves))
	return tr
}

// save writes tr in the working directory as sandbox-IMPL-N-moves.json, or
// with -2, -3, … before .json when that name is taken: it never overwrites
// a file.
func save(tr *sim.Trace) tea.Cmd {
	return func() tea.Msg {
		b, err := json.MarshalIndent(tr, "", "  ") // as explore --out writes it
		if err != nil {
			return savedMsg{err: err}
		}
		b = append(b, '\n')
		base := fmt.Sprintf("sandbox-%s-%d-moves", tr.Impl, len(tr.Schedule.Moves))
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
			path, err := filepath.Abs(name)
			if err != nil {
				path = name
			}
			return savedMsg{path: path}
		}
		return savedMsg{err: fmt.Errorf("%s.json and a thousand more names are taken", base)}
	}
}
