//go:build race

package main

// The race detector slows a run tenfold; the tests that put the whole
// matrix through the command line leave it to the plain run (package
// scenarios runs the matrix under the race detector).
const raceEnabled = true
