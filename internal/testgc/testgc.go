// Package testgc gives a test binary the garbage collector's target that
// the explore command uses. The tests run lessons and searches by the
// hundred, and each run builds a world (servers, clients, connections) that
// is garbage a moment later while the live heap stays small: collecting a
// quarter as often took go test ./... from 101 s of CPU to 78 s.
package testgc

import (
	"os"
	"runtime/debug"
)

// Percent is explore.GCPercent (a test there keeps the two equal; this
// package cannot import explore, whose own tests use it).
const Percent = 400

// Set sets the collector's target to Percent, unless GOGC says otherwise.
func Set() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
}
