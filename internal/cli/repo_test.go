package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// repoRoot is the module's root, as seen from this package's directory, where
// go test runs its tests: the tests read the repository's files (docs/,
// README.md, the lesson files) and build lockstep there.
const repoRoot = "../.."

// repoPath is the path of the repository's file or directory name, given
// from the module's root ("docs/explore.md").
func repoPath(name string) string { return filepath.Join(repoRoot, name) }

// readString is the text of the repository's file name (repoPath).
func readString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(repoPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
