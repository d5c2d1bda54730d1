//go:build !linux

package external

import "os/exec"

// dieWithUs is Linux's alone: elsewhere an agent whose lockstep died ends
// when it next reads its stdin.
func dieWithUs(cmd *exec.Cmd) {}
