package cli

import (
	"fmt"
	"io"
)

// lines writes a command's lines as they come, and keeps the first write
// error (a closed pipe, a full disk) to return it.
type lines struct {
	w   io.Writer
	err error
}

func (l *lines) printf(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, args...)
	}
}
