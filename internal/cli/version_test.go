package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
)

// vcs is the build settings go build records in a git checkout of commit
// rev.
func vcs(rev string, modified bool) []debug.BuildSetting {
	m := "false"
	if modified {
		m = "true"
	}
	return []debug.BuildSetting{{Key: "GOARCH", Value: "amd64"}, {Key: "GOOS", Value: "linux"},
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
		{Key: "vcs.time", Value: "2026-01-01T12:00:00Z"}, {Key: "vcs.modified", Value: m}}
}

// platform is the settings of a build for linux/amd64 that recorded no
// version control.
var platform = []debug.BuildSetting{{Key: "GOARCH", Value: "amd64"}, {Key: "GOOS", Value: "linux"}}

const fullRev = "0123456789abcdef0123456789abcdef01234567"

// What --version says for each way of building lockstep, from what Go
// 1.26 and 1.27 record (checked by the install test, LOCKSTEP_INSTALL=1,
// on real builds): the release, or the commit and -dirty, or devel; then
// the Go release and platform.
func TestVersionOf(t *testing.T) {
	main := func(v string) debug.Module { return debug.Module{Path: "github.com/lockstep-sim/lockstep", Version: v} }
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install lockstep@v0.9.0", debug.BuildInfo{GoVersion: "go1.27.3", Main: main("v0.9.0"), Settings: platform},
			"v0.9.0 (go1.27.3 linux/amd64)"},
		{"cross-compiled: the settings' platform, not this one", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v0.9.0"),
			Settings: []debug.BuildSetting{{Key: "GOARCH", Value: "arm64"}, {Key: "GOOS", Value: "darwin"}}},
			"v0.9.0 (go1.26.8 darwin/arm64)"},
		{"a pre-release", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v1.0.0-rc.1"), Settings: platform},
			"v1.0.0-rc.1 (go1.26.8 linux/amd64)"},
		{"go build in a clean clone", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v0.0.0-20260101120000-0123456789ab"),
			Settings: vcs(fullRev, false)}, "0123456789ab (go1.26.8 linux/amd64)"},
		{"go build in a clone with changes", debug.BuildInfo{GoVersion: "go1.27.3", Main: main("v0.0.0-20260101120000-0123456789ab+dirty"),
			Settings: vcs(fullRev, true)}, "0123456789ab-dirty (go1.27.3 linux/amd64)"},
		{"go build a commit after v0.9.0", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v0.9.1-0.20260101120000-0123456789ab"),
			Settings: vcs(fullRev, false)}, "0123456789ab (go1.26.8 linux/amd64)"},
		{"go install lockstep@master: a pseudo-version, no vcs settings", debug.BuildInfo{GoVersion: "go1.26.8",
			Main: main("v1.0.0-rc.1.0.20260101120000-0123456789ab"), Settings: platform}, "0123456789ab (go1.26.8 linux/amd64)"},
		{"go build at the tag v0.9.0", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v0.9.0"), Settings: vcs(fullRev, false)},
			"v0.9.0 (go1.26.8 linux/amd64)"},
		{"go build at the tag v0.9.0, with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("v0.9.0+dirty"),
			Settings: vcs(fullRev, true)}, "v0.9.0+dirty (go1.26.8 linux/amd64)"},
		{"a revision and no version (Go before 1.24)", debug.BuildInfo{GoVersion: "go1.23.0", Main: main("(devel)"),
			Settings: vcs(fullRev, true)}, "0123456789ab-dirty (go1.23.0 linux/amd64)"},
		{"go run, or go build -buildvcs=false", debug.BuildInfo{GoVersion: "go1.26.8", Main: main("(devel)"), Settings: platform},
			"devel (go1.26.8 linux/amd64)"},
		{"no build information", debug.BuildInfo{}, "devel (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
	} {
		if got := versionOf(&tc.info); got != tc.want {
			t.Errorf("%s: versionOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// pseudoCommit agrees with golang.org/x/mod/module on what is a
// pseudo-version and which commit it names, for each form the go command
// makes and for versions that only look like one.
func TestPseudoCommit(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	versions := []string{
		"v0.9.0", "v0.9.0+dirty", "v1.0.0-rc.1", "v1.0.0-20260101120000", "v1.0.0-20260101120000-0123456789",
		"v1.0.0-2026010112000-0123456789ab", "(devel)", "", "v0.0.0-20260101120000-0123456789AB",
		"v1.2.3-20260101120000-0123456789ab", "v1.2.3-pre.20260101120000-0123456789ab", "v1.2.3-pre0.20260101120000-0123456789ab",
		"v1.2.3-x.0.20260101120000-", "v1.2-0.20260101120000-0123456789ab", "1.2.3-0.20260101120000-0123456789ab",
		"v1.0.0-0.20260101120000-0123456789ab", "v1.2.3-0.20260101120000-0123456789ab+dirty.x", "v01.2.3-0.20260101120000-abc",
	}
	for _, older := range []string{"", "v0.9.0", "v1.0.0-rc.1", "v2.3.4-pre"} {
		v := module.PseudoVersion("v0", older, at, "0123456789ab")
		versions = append(versions, v, v+"+dirty")
	}
	for _, v := range versions {
		got, ok := pseudoCommit(v)
		base, _, _ := strings.Cut(v, "+") // x/mod's functions take no build suffix
		want, err := module.PseudoVersionRev(base)
		if wantOK := err == nil && module.IsPseudoVersion(base); ok != wantOK || got != want && ok {
			t.Errorf("pseudoCommit(%q) = %q, %v; x/mod: %q, %v", v, got, ok, want, wantOK)
		}
	}
}
