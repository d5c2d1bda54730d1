package main

import "runtime/debug"

// version is lockstep's version as the Go toolchain recorded it in the
// binary: the main module's version (go install lockstep@v1.2.0, or the
// pseudo-version go build derives from a checkout's commit), else the
// commit the binary was built from ("(modified)" when the checkout had
// changes), else "(devel)". Nothing is written by hand, so it cannot go
// stale.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(info)
}

// versionOf is version for the build information info.
func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += " (modified)"
	}
	return rev
}
