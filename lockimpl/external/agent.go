package external

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// This file is the agent: the process that runs one client's lock, in the
// lock's own language, and the control protocol lockstep drives it by (JSON
// lines: lockstep's orders on the agent's stdin, its reports on its
// stdout; docs/external.md).

// order is what lockstep tells the agent.
type order struct {
	Op string `json:"op"` // init, acquire, release, renew, tick
	// NowMS is the run's time, in milliseconds of the Unix epoch: every
	// order carries it, so that an agent's clock, which stood still while
	// the agent had nothing to do, comes to the run's time before it acts.
	NowMS int64 `json:"now_ms,omitempty"`
	// Of init: the ports node by node, the lock's key and TTL, the
	// adapter's file and its options.
	Nodes   []string       `json:"nodes,omitempty"`
	Key     string         `json:"key,omitempty"`
	TTLMS   int64          `json:"ttl_ms,omitempty"`
	Adapter string         `json:"adapter,omitempty"`
	Options map[string]any `json:"options,omitempty"`
	// Seed is the lock's Math.random's (Node): the same run after run.
	Seed uint32 `json:"seed,omitempty"`
}

// report is what the agent says each time it stops: it waits for a reply
// (wait), sleeps until a time of the run's (sleep), or has finished an
// order (done, with its result). Sent is how many commands of the lock's
// it sent since its last report.
type report struct {
	State   string `json:"state"`
	Sent    int    `json:"sent"`
	UntilMS int64  `json:"until_ms,omitempty"`
	Result  string `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	// Fence is the fencing token of a hold (result held), for a lock that
	// hands one out; 0 otherwise.
	Fence int64 `json:"fence,omitempty"`
	// Renews says, with init's result ready, that the lock has renew().
	Renews bool `json:"renews,omitempty"`
	// gone: the agent's output ended (it exited, or was killed); err says
	// why, with what it wrote to stderr.
	gone bool
	err  error
}

// agent is one running agent process.
type agent struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// reports are its reports as they come, made outside the bubble.
	reports chan report
	stderr  *lockedBuffer
	once    sync.Once
}

// startAgent starts argv (the runtime, the agent's file and its
// arguments), with env beside the process's own variables, outside the
// bubble: its pipes are read there.
func startAgent(argv, env []string) (*agent, error) {
	a := &agent{stderr: &lockedBuffer{}}
	var err error
	inOutside(func() {
		a.reports = make(chan report, 16)
		a.cmd = exec.Command(argv[0], argv[1:]...)
		a.cmd.Stderr = a.stderr
		if env != nil {
			a.cmd.Env = append(os.Environ(), env...)
		}
		dieWithUs(a.cmd)
		var stdout io.ReadCloser
		if stdout, err = a.cmd.StdoutPipe(); err != nil {
			return
		}
		if a.stdin, err = a.cmd.StdinPipe(); err != nil {
			return
		}
		if err = a.cmd.Start(); err != nil {
			return
		}
		go a.read(stdout)
	})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(argv, " "), err)
	}
	return a, nil
}

// read turns each line of the agent's output into a report. A line that is
// not a report, and the end of its output, end the agent.
func (a *agent) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r report
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.State == "" {
			a.reports <- report{gone: true, err: fmt.Errorf("the agent wrote %q on its control channel, not a report", clip(sc.Text()))}
			a.kill()
			return
		}
		a.reports <- r
	}
	err := a.cmd.Wait()
	if msg := strings.TrimSpace(a.stderr.String()); msg != "" {
		err = fmt.Errorf("%v: %s", err, clip(msg))
	}
	a.reports <- report{gone: true, err: fmt.Errorf("the agent ended: %w", orExited(err))}
}

// send writes one order.
func (a *agent) send(o order) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = a.stdin.Write(append(b, '\n'))
	return err
}

// kill ends the agent's process; its output then ends.
func (a *agent) kill() {
	a.once.Do(func() {
		a.stdin.Close()
		if a.cmd.Process != nil {
			a.cmd.Process.Kill()
		}
	})
}

func orExited(err error) error {
	if err == nil {
		return errors.New("exited")
	}
	return err
}

// clip keeps the last part of a long text: the end of a traceback.
func clip(s string) string {
	const most = 2000
	if len(s) > most {
		return "…" + s[len(s)-most:]
	}
	return s
}

// lockedBuffer is a buffer the agent's stderr is copied into by exec's own
// goroutine while the run reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
