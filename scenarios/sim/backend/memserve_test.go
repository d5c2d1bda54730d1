package backend

import (
	"bufio"
	"slices"
	"strings"
	"testing"
)

// The engine's own connection loop reads what go-redis sends, and refuses
// anything else rather than guessing.
func TestReadCommand(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("*3\r\n$3\r\nSET\r\n$5\r\nlo\r\nk\r\n$0\r\n\r\n"))
	args, err := readCommand(r)
	if err != nil || !slices.Equal(args, []string{"SET", "lo\r\nk", ""}) {
		t.Errorf("readCommand = %q, %v", args, err)
	}
	for _, in := range []string{"PING\r\n", "*1\r\n:3\r\n", "*-1\r\n", "*0\r\n", "*1\r\n$-2\r\n", "*1\r\n$5\r\nab"} {
		if args, err := readCommand(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("%q: read %q, want an error", in, args)
		}
	}
}
