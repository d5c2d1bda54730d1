//go:build go1.26 && !go1.27

package bubble

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// This file is the only one that leans on what the Go 1 promise does not
// cover: testing.MainStart and the shape of its dependencies interface,
// testing.RunTests, and the testing.T field that makes a test chatty. It is
// built for the Go versions it was written against; a newer Go fails to
// build this package until the file is checked against it (host_test.go
// tells what to check).

// hostName is the name of the one long-lived test that hosts every bubble.
const hostName = "LockstepBubbleHost"

// host is the process's bubble host: a test function that runs for the
// life of the process and starts a bubble for every request.
var host struct {
	once sync.Once
	reqs chan func(*testing.T)
}

// hostT runs fn on the host's goroutine for a new bubble, starting the host
// the first time.
func hostT(fn func(*testing.T)) {
	host.once.Do(startHost)
	host.reqs <- fn
}

func startHost() {
	host.reqs = make(chan func(*testing.T))
	tests := []testing.InternalTest{{Name: hostName, F: serve}}
	if testing.Testing() {
		// A test binary: its testing flags are parsed, and its own M runs.
		// RunTests runs the host beside it, with none of M.Run's setup
		// (profiles, the alarm, fuzzing workers) done twice.
		go testing.RunTests(matchAll, tests)
		return
	}
	// Any other binary: the testing flags are registered here and set from
	// a fixed list, never from the command line; no timeout.
	m := testing.MainStart(deps{}, tests, nil, nil, nil)
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse([]string{"-test.timeout=0", "-test.v=false", "-test.count=1"})
	}
	go m.Run() // never returns: serve does not
}

// serve hosts bubbles until the process ends.
func serve(t *testing.T) {
	quiet(t)
	for fn := range host.reqs {
		go fn(t)
	}
}

// quiet keeps the host from reporting each bubble as a passing subtest in
// a test binary run with -v: it clears the T's chatty printer.
func quiet(t *testing.T) {
	f := reflect.ValueOf(t).Elem().FieldByName("chatty")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		return
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetZero()
}

func matchAll(pat, str string) (bool, error) { return true, nil }

// corpusEntry is testing's own (an alias of this struct type there).
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

// deps is what testing.MainStart needs from a binary that is not a test.
type deps struct{}

var errNotTest = errors.New("bubble: not a test binary")

func (deps) ImportPath() string                          { return "" }
func (deps) ModulePath() string                          { return "" }
func (deps) MatchString(pat, str string) (bool, error)   { return regexp.MatchString(pat, str) }
func (deps) SetPanicOnExit0(bool)                        {}
func (deps) StartCPUProfile(io.Writer) error             { return errNotTest }
func (deps) StopCPUProfile()                             {}
func (deps) StartTestLog(io.Writer)                      {}
func (deps) StopTestLog() error                          { return nil }
func (deps) WriteProfileTo(string, io.Writer, int) error { return errNotTest }
func (deps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errNotTest
}

func (deps) RunFuzzWorker(func(corpusEntry) error) error {
	return errNotTest
}

func (deps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, errNotTest
}

func (deps) CheckCorpus([]any, []reflect.Type) error { return errNotTest }
func (deps) ResetCoverage()                          {}
func (deps) SnapshotCoverage()                       {}
func (deps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
