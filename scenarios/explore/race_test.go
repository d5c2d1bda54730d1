//go:build race

package explore

// The race detector slows the search tenfold; the heaviest searches are
// left to the plain test run.
const raceEnabled = true
