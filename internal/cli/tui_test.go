package cli

import (
	"path/filepath"
	"testing"
)

// Issue #37 item 13: the TUI's hints name the command the user can run:
// go run . for the binary go run built in a go-build directory of the
// temporary directory, else os.Args[0] as it was typed.
func TestInvokedAs(t *testing.T) {
	tmp := filepath.FromSlash("/tmp")
	for _, tc := range []struct {
		arg0, gotmp, want string
	}{
		{"/tmp/go-build2718281828/b001/exe/lockstep", "", "go run ."},
		{"/tmp/go-build1/b001/exe/lockstep", "/var/cache/gotmp", "go run ."},
		// GOTMPDIR, where go run builds when it is set.
		{"/var/cache/gotmp/go-build3141/b001/exe/lockstep", "/var/cache/gotmp", "go run ."},
		{"lockstep", "", "lockstep"},
		{"./lockstep", "", "./lockstep"},
		{"bin/lockstep", "", "bin/lockstep"},
		{"/usr/local/bin/lockstep", "", "/usr/local/bin/lockstep"},
		// Under the temporary directory but not built by go run.
		{"/tmp/lockstep-tui", "", "/tmp/lockstep-tui"},
		{"/tmp/build/go-build-tools/lockstep", "", "/tmp/build/go-build-tools/lockstep"},
		// A go-build directory elsewhere than the temporary directory.
		{"/home/ann/go-build7/b001/exe/lockstep", "", "/home/ann/go-build7/b001/exe/lockstep"},
		{"/tmpx/go-build7/b001/exe/lockstep", "", "/tmpx/go-build7/b001/exe/lockstep"},
		// What a shell would split or expand is quoted, as it pastes.
		{"/home/ann/my tools/lockstep", "", "'/home/ann/my tools/lockstep'"},
		{"/home/ann/it's/lockstep", "", `'/home/ann/it'\''s/lockstep'`},
		{"~/lockstep", "", "'~/lockstep'"},
		{"", "", "lockstep"},
	} {
		if got := invokedAs(filepath.FromSlash(tc.arg0), tmp, filepath.FromSlash(tc.gotmp)); got != filepath.FromSlash(tc.want) && got != tc.want {
			t.Errorf("invokedAs(%q, GOTMPDIR=%q) = %q, want %q", tc.arg0, tc.gotmp, got, tc.want)
		}
	}
}
