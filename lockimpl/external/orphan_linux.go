package external

import (
	"os/exec"
	"syscall"
)

// dieWithUs has the kernel kill the agent if lockstep's process dies first
// (a test binary's timeout, a kill -9), so that no agent — one spinning in
// lock code, which never reads its stdin's end — outlives it. The signal
// follows the thread that started the agent: serveOutside's, locked to its
// goroutine for as long as the process lives.
func dieWithUs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
