package sentinel

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the Sentinel die with the test process, even when that
// is killed before its cleanups run.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
