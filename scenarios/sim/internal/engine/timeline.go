package engine

import (
	"fmt"
)

// NoVerdict says why the run so far has no verdict, if it has none: the
// lock sent no Redis command and every call of it failed, or every command
// it sent failed. Whatever it "broke" it broke by not running.
func (w *World) NoVerdict() error {
	if w.Commands == 0 && w.LockCalls > 0 && w.LockErrs == w.LockCalls {
		return fmt.Errorf("the lock implementation %s sent no Redis command and returned an error from each of its %d calls, so the run has no verdict; the first: %v",
			w.Impl.Name, w.LockCalls, w.firstLockErr)
	}
	if w.Commands > 0 && w.Failed == w.Commands {
		return fmt.Errorf("every one of the run's %d Redis commands failed, so it has no verdict; the first: %s", w.Commands, w.firstFailed)
	}
	return nil
}
