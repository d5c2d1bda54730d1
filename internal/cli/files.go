package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openFile opens a file the command line names — a trace, a lesson, a
// course (kind) — if it is a regular file of at most limit bytes. What is
// not a regular file is refused before a byte is read: a named pipe blocks
// its reader until a writer comes, deaf to signals, and a device may never
// end. It opens without blocking (O_NONBLOCK: opening a named pipe for
// reading waits for a writer otherwise) and asks the open file what it
// is, so that what is checked is what is read.
func openFile(path, kind string, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, errUsage{err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errUsage{err}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, errUsage{fmt.Errorf("%s is %s, not a %s file", path, fileType(st.Mode()), kind)}
	}
	if st.Size() > limit {
		f.Close()
		return nil, errUsage{fmt.Errorf("%s: larger than %s (%d bytes), the most a %s file may be", path, mib(limit), st.Size(), kind)}
	}
	return f, nil
}

// readFile reads a file the command line names (openFile), through a
// LimitReader too: a file that grows while it is read stops at limit.
func readFile(path, kind string, limit int64) ([]byte, error) {
	f, err := openFile(path, kind, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errUsage{fmt.Errorf("read %s: %w", path, err)}
	}
	if int64(len(b)) > limit {
		return nil, errUsage{fmt.Errorf("%s: larger than %s, the most a %s file may be", path, mib(limit), kind)}
	}
	return b, nil
}

// fileType names what a file that is not a regular one is.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
