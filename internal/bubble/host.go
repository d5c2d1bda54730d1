package bubble

import (
	"flag"
	"sync"
	"testing"
)

// synctest.Test needs a *testing.T, and only a running test has one. The
// host is one long-lived test function that runs for the life of the
// process and starts a bubble for every request. It is started through the
// part of package testing that the Go 1 promise covers (testing.Init,
// testing.Main, testing.RunTests), so no Go release needs a file of its own.

// hostName is the name of the one long-lived test that hosts every bubble.
const hostName = "LockstepBubbleHost"

// hostFlags are the testing flags of a binary that is not a test, set here
// and never from its command line: no timeout (the default of go test's
// ten minutes would end a long TUI session), nothing chatty, one run.
var hostFlags = [][2]string{
	{"test.timeout", "0"},
	{"test.v", "false"},
	{"test.count", "1"},
}

// host is the process's bubble host.
var host struct {
	once    sync.Once
	reqs    chan func(*testing.T)
	serving chan struct{} // closed when the host runs
}

// hostT runs fn on the host's goroutine for a new bubble, starting the host
// the first time.
func hostT(fn func(*testing.T)) {
	host.once.Do(startHost)
	host.reqs <- fn
}

func startHost() {
	host.reqs = make(chan func(*testing.T))
	host.serving = make(chan struct{})
	tests := []testing.InternalTest{{Name: hostName, F: serve}}
	if testing.Testing() {
		// A test binary: its testing flags are the user's, and its own M
		// runs. RunTests runs the host beside it, with none of M.Run's
		// set-up (profiles, the alarm, fuzzing workers) done twice. Under
		// -v it prints one line, "=== RUN   LockstepBubbleHost"; the
		// bubbles themselves report nothing (a synctest T never does).
		unskipped(func() { go testing.RunTests(matchAll, tests) })
		return
	}
	// Any other binary: the testing flags are registered here and set from
	// a fixed list. flag.Set leaves the program's own arguments (flag.Args)
	// as they are when it has parsed them already.
	testing.Init()
	for _, f := range hostFlags {
		_ = flag.Set(f[0], f[1])
	}
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	// testing.Main never returns: serve does not, and Main's os.Exit and
	// M.Run's "PASS" come only after the tests.
	go testing.Main(matchAll, tests, nil, nil)
}

// serve hosts bubbles until the process ends.
func serve(t *testing.T) {
	close(host.serving)
	for fn := range host.reqs {
		go fn(t)
	}
}

// unskipped starts the host (start) with the test binary's skip pattern
// (-test.skip) set aside, until the host runs: RunTests reads the pattern
// once, as it begins, and would skip the host if it matched, leaving every
// bubble waiting for it until the binary's timeout. A pattern can match any
// name: testing splits it at its top-level "|" and "/" and asks of each
// part alone (go test -skip 'TestReal|Browser' hung every package that
// runs a world). The binary's own tests were matched long before.
func unskipped(start func()) {
	skip := flag.Lookup("test.skip")
	if skip == nil {
		start()
		<-host.serving
		return
	}
	pattern := skip.Value.String()
	_ = skip.Value.Set("")
	start()
	<-host.serving
	_ = skip.Value.Set(pattern)
}

// matchAll runs the host whatever -test.run a test binary was given.
func matchAll(string, string) (bool, error) { return true, nil }
