// Command lockstep teaches Redis distributed locks by breaking them on
// purpose: it plays scripted timelines of the classic lock bugs against real
// lock implementations and shows the exact step where an invariant breaks.
// The command line is package internal/cli; main hands it the arguments and
// exits with its code.
package main

//go:generate go run . docs docs

import (
	_ "embed"
	"os"

	"github.com/lockstep-sim/lockstep/internal/cli"
)

// selfCheck is the checklist lockstep site puts on its pages. It is
// embedded here because go:embed reaches no file above its package's
// directory, and internal/cli is below docs/.
//
//go:embed docs/self-check.md
var selfCheck string

func main() {
	cli.SelfCheck = selfCheck
	os.Exit(cli.Main(os.Args[1:]))
}
