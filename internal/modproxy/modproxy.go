// Package modproxy lays out a file-based Go module proxy for one version of
// a module taken from a git working tree: under the module's escaped path,
// @v/list, @v/VERSION.info, @v/VERSION.mod and @v/VERSION.zip, as the
// GOPROXY protocol defines them. With GOPROXY=file://DIR the go command
// installs and gets that version as it would a release, with no network and
// no tag: lockstep's install test (LOCKSTEP_INSTALL=1) proves with it that
// go install lockstep@VERSION and go get …/locktest@VERSION work.
//
// The zip is made by golang.org/x/mod/zip, the rules the go command checks
// (nested modules, vendor directories and irregular files left out), from
// the files git tracks: what a clone has, not what else lies in the tree.
package modproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// Tracked lists the files git tracks in the work tree at root (slash
// paths, relative to root) that are there: a tracked file deleted in the
// work tree is not listed, an untracked one never is. Their content is the
// work tree's, so that uncommitted changes to tracked files are tested too.
func Tracked(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", root, err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name))); err == nil {
			files = append(files, name)
		}
	}
	return files, nil
}

// Write adds version to the proxy at dir for the module at root (its
// go.mod names it), made of files (slash paths relative to root), dated
// at: the @v/list gains the version, and its .info, .mod and .zip are
// written. It returns the module and version written.
func Write(dir, root string, files []string, version string, at time.Time) (module.Version, error) {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return module.Version{}, err
	}
	m := module.Version{Path: modfile.ModulePath(gomod), Version: version}
	if m.Path == "" {
		return m, fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
	}
	if err := module.Check(m.Path, m.Version); err != nil {
		return m, err
	}
	if module.CanonicalVersion(version) != version {
		return m, fmt.Errorf("version %q is not canonical (%q)", version, module.CanonicalVersion(version))
	}
	vdir, err := versionDir(dir, m.Path)
	if err != nil {
		return m, err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    string
	}{version, at.UTC().Format(time.RFC3339)})
	for _, step := range []func() error{
		func() error { return addToList(filepath.Join(vdir, "list"), version) },
		func() error { return os.WriteFile(filepath.Join(vdir, version+".info"), info, 0o644) },
		func() error { return os.WriteFile(filepath.Join(vdir, version+".mod"), gomod, 0o644) },
		func() error { return writeZip(filepath.Join(vdir, version+".zip"), m, root, files) },
	} {
		if err := step(); err != nil {
			return m, err
		}
	}
	return m, nil
}

// versionDir makes and returns DIR/ESCAPED-PATH/@v, where the protocol
// looks for the module path's versions (upper-case letters escaped as
// !lower-case, as the go command asks for them).
func versionDir(dir, path string) (string, error) {
	escaped, err := module.EscapePath(path)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	return vdir, os.MkdirAll(vdir, 0o755)
}

// addToList adds version to the @v/list file at name, one version a line,
// once.
func addToList(name, version string) error {
	old, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(old))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(name, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// writeZip writes the module zip of m, from files under root, to name.
func writeZip(name string, m module.Version, root string, files []string) error {
	list := make([]zip.File, len(files))
	for i, f := range files {
		list[i] = treeFile{root: root, path: f}
	}
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := zip.Create(out, m, list); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// treeFile is a file of the work tree, as zip.Create reads it.
type treeFile struct{ root, path string }

func (f treeFile) Path() string                 { return f.path }
func (f treeFile) name() string                 { return filepath.Join(f.root, filepath.FromSlash(f.path)) }
func (f treeFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.name()) }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(f.name()) }
