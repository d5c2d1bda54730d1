package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version says what this binary was built from and with, as the Go
// toolchain recorded it in the binary: "v0.9.0 (go1.27.3 linux/amd64)".
// Nothing is written by hand, so it cannot go stale.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return versionOf(info)
}

// versionOf is version for the build information info: what was built
// (built), then the Go release and the platform it was built with.
func versionOf(info *debug.BuildInfo) string {
	goVersion, goos, goarch := info.GoVersion, runtime.GOOS, runtime.GOARCH
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	return built(info) + " (" + goVersion + " " + goos + "/" + goarch + ")"
}

// built names what the binary was built from:
//   - a release, as go install lockstep@v0.9.0 (or go build at a tag)
//     records it: "v0.9.0", or "v0.9.0+dirty" for a checkout at the tag
//     with changes, as go build stamps it;
//   - a commit: the 12 hex digits of the pseudo-version go build stamps in
//     a git checkout (go install lockstep@master records one too), or of
//     vcs.revision, with "-dirty" when the checkout had changes, as git
//     describe --dirty says it: "fb14290abc12-dirty";
//   - "devel" when the toolchain recorded neither: go run stamps no
//     version and no commit, nor does go build with -buildvcs=false or
//     outside a checkout.
func built(info *debug.BuildInfo) string {
	v := info.Main.Version
	rev, modified := "", strings.HasSuffix(v, "+dirty")
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = modified || s.Value == "true"
		}
	}
	if r, ok := pseudoCommit(v); ok {
		rev = r
	} else if v != "" && v != "(devel)" {
		return v
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "-dirty"
	}
	return rev
}

// pseudoCommit is the commit a pseudo-version names, as
// golang.org/x/mod/module reads one (the binary does not import it for
// this one function): vX.0.0-TIME-REV, vX.Y.Z-0.TIME-REV or
// vX.Y.Z-PRE.0.TIME-REV, TIME 14 digits, REV letters and digits (12 hex
// digits from git), a "+dirty" or other build suffix after it.
func pseudoCommit(v string) (string, bool) {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || !allOf(v[i+1:], "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return "", false
	}
	head := v[:i]
	if len(head) < 14 || !allOf(head[len(head)-14:], "0123456789") {
		return "", false
	}
	core, pre, ok := strings.Cut(head[:len(head)-14], "-")
	parts := strings.Split(strings.TrimPrefix(core, "v"), ".")
	if !ok || !strings.HasPrefix(core, "v") || len(parts) != 3 || !number(parts[0]) || !number(parts[1]) || !number(parts[2]) {
		return "", false
	}
	first := pre == "" && parts[1] == "0" && parts[2] == "0" // vX.0.0-TIME-REV
	after := pre == "0." || strings.HasSuffix(pre, ".0.")    // vX.Y.Z-0. or -PRE.0.
	if !first && !after {
		return "", false
	}
	return v[i+1:], true
}

// number says whether s is a semver number: digits, no leading zero.
func number(s string) bool {
	return allOf(s, "0123456789") && (s == "0" || s[0] != '0')
}

// allOf says whether s is not empty and each of its characters is one of
// chars.
func allOf(s, chars string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune(chars, c) {
			return false
		}
	}
	return true
}
