package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// writeFile writes a report to path, all or nothing, with the permissions
// of any file the user creates (0666 less the umask).
func writeFile(path string, write func(io.Writer) error) error {
	f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createTemp creates a new file in dir with mode 0666 (less the umask),
// where os.CreateTemp would give 0600: the file is renamed into place and
// must end up as readable as any other the user writes.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name := filepath.Join(dir, ".lockstep-"+hex.EncodeToString(b))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary name in " + dir)
}
