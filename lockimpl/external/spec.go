package external

import (
	"github.com/redis/go-redis/v9"

	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/lockstep-sim/lockstep/clients"
)

// Spec is a lock in another language: the agent's runtime, the adapter
// that makes the lock, and the adapter's options.
type Spec struct {
	// Name is the implementation's name (py-redis-lock).
	Name string
	// Runtime is the agent's language: "python" or "node".
	Runtime string
	// Adapter is the adapter's file: a path in package clients' files
	// (python/adapters/redis_py_lock.py), or, for a lock of the user's
	// own, a path on disk.
	Adapter string
	// Own says Adapter is a path on disk.
	Own bool
	// Options are handed to the adapter's make as they are.
	Options map[string]any
}

// New is a client's lock of s's, in env: its agent starts with its first
// call.
func New(s Spec, env Env) *Lock {
	return &Lock{env: env, spec: s, sem: make(chan struct{}, 1), replies: make(chan reply, 64),
		in: inbox{pushed: make(chan struct{}, 1), subs: map[*conn]*redis.PubSub{}}}
}

// command is how to start the agent: its command line and the variables
// it needs beside the process's own, and the adapter's path on disk.
func (s Spec) command() (argv, env []string, adapter string, err error) {
	dir, err := unpacked()
	if err != nil {
		return nil, nil, "", err
	}
	adapter = s.Adapter
	if !s.Own {
		adapter = filepath.Join(dir, filepath.FromSlash(s.Adapter))
	}
	// The adapter's path on the command line says, in ps, which lock an
	// agent runs; the agent reads it from init.
	switch s.Runtime {
	case "python":
		py, err := python()
		if err != nil {
			return nil, nil, "", err
		}
		return []string{py, "-u", filepath.Join(dir, "python", "lockstep_agent.py"), adapter}, nil, adapter, nil
	case "node":
		n, err := nodeRuntime()
		if err != nil {
			return nil, nil, "", err
		}
		// The libraries are npm ci's, in clients/node/node_modules: the
		// agent and the adapters, written out elsewhere, find them by
		// NODE_PATH.
		return []string{n.node, filepath.Join(dir, "node", "lockstep_agent.js"), adapter},
			[]string{"NODE_PATH=" + n.modules}, adapter, nil
	}
	return nil, nil, "", fmt.Errorf("no agent for the runtime %q", s.Runtime)
}

var (
	unpackOnce sync.Once
	unpackDir  string
	unpackErr  error
)

// unpacked is a directory that holds package clients' files: one per
// version of them, in the temporary directory, written once.
func unpacked() (string, error) {
	unpackOnce.Do(func() {
		h := sha256.New()
		err := fs.WalkDir(clients.Files, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := clients.Files.ReadFile(p)
			h.Write([]byte(p + "\x00"))
			h.Write(b)
			return err
		})
		if err != nil {
			unpackErr = err
			return
		}
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("lockstep-clients-%x", h.Sum(nil)[:8]))
		if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
			unpackDir = dir
			return
		}
		tmp, err := os.MkdirTemp(os.TempDir(), "lockstep-clients-")
		if err != nil {
			unpackErr = err
			return
		}
		unpackErr = fs.WalkDir(clients.Files, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := clients.Files.ReadFile(p)
			if err != nil {
				return err
			}
			out := filepath.Join(tmp, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, b, 0o644)
		})
		if unpackErr == nil {
			unpackErr = os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644)
		}
		if unpackErr != nil {
			return
		}
		if err := os.Rename(tmp, dir); err != nil {
			// Another process wrote it first: use its copy.
			os.RemoveAll(tmp)
		}
		unpackDir = dir
	})
	return unpackDir, unpackErr
}

// NeedsPython says whether this machine has a Python 3 with redis-py, as
// the Python locks need, and if not, what to install.
func NeedsPython() error {
	_, err := python()
	return err
}

// pythons are python's answers, by $LOCKSTEP_PYTHON: a look costs a
// process start.
var pythons sync.Map // string → pythonFound

type pythonFound struct {
	path string
	err  error
}

// python is a Python 3 that has redis-py: $LOCKSTEP_PYTHON, or the first of
// python3 on the PATH and /usr/bin/python3 (where Debian's python3-redis
// installs it) that imports redis.
func python() (string, error) {
	env := os.Getenv("LOCKSTEP_PYTHON")
	if f, ok := pythons.Load(env); ok {
		return f.(pythonFound).path, f.(pythonFound).err
	}
	var f pythonFound
	if env != "" {
		if f.path, f.err = withRedis(env); f.err != nil {
			f.err = fmt.Errorf("LOCKSTEP_PYTHON=%s: %w (a Python 3 with redis-py: apt-get install python3-redis)", env, f.err)
		}
	} else {
		var tried []string
		for _, c := range []string{"python3", "/usr/bin/python3"} {
			path, err := withRedis(c)
			if err == nil {
				f.path = path
				break
			}
			tried = append(tried, err.Error())
		}
		if f.path == "" {
			f.err = fmt.Errorf("no Python 3 with redis-py (%s): install it with apt-get install python3-redis, or set LOCKSTEP_PYTHON",
				strings.Join(tried, "; "))
		}
	}
	pythons.Store(env, f)
	return f.path, f.err
}

// withRedis is the path of the Python c, if it imports redis.
func withRedis(c string) (string, error) {
	path, err := exec.LookPath(c)
	if err != nil {
		return "", fmt.Errorf("%s: not found", c)
	}
	if exec.Command(path, "-c", "import redis").Run() != nil {
		return "", fmt.Errorf("%s: no redis module", path)
	}
	return path, nil
}

// NeedsNode says whether this machine has Node and lockstep's JavaScript
// libraries (npm ci in clients/node), as the JavaScript locks need, and if
// not, what to do.
func NeedsNode() error {
	_, err := nodeRuntime()
	return err
}

// nodeFound is Node and the node_modules the JavaScript locks load.
type nodeFound struct {
	node, modules string
	err           error
}

var (
	nodeOnce sync.Once
	nodeHere nodeFound
)

// installNode is what to do when Node or the libraries are missing.
const installNode = "apt-get install nodejs npm, then npm ci in clients/node of lockstep's source; or set LOCKSTEP_NODE_MODULES to a node_modules that has them"

// nodeRuntime finds node ($LOCKSTEP_NODE, or node on the PATH) and the
// node_modules of clients/node: $LOCKSTEP_NODE_MODULES, or the one in the
// source tree lockstep was built from, or under the working directory
// (clients/node/node_modules, as in a checkout's root).
func nodeRuntime() (nodeFound, error) {
	nodeOnce.Do(func() {
		name := os.Getenv("LOCKSTEP_NODE")
		if name == "" {
			name = "node"
		}
		path, err := exec.LookPath(name)
		if err != nil {
			nodeHere.err = fmt.Errorf("no Node (%s: not found): %s", name, installNode)
			return
		}
		nodeHere.node = path
		var candidates []string
		if env := os.Getenv("LOCKSTEP_NODE_MODULES"); env != "" {
			candidates = []string{env}
		} else {
			if _, file, _, ok := runtime.Caller(0); ok {
				candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", "..", "clients", "node", "node_modules"))
			}
			candidates = append(candidates, filepath.Join("clients", "node", "node_modules"))
		}
		for _, c := range candidates {
			if _, err := os.Stat(filepath.Join(c, "@sinonjs", "fake-timers", "package.json")); err == nil {
				nodeHere.modules, _ = filepath.Abs(c)
				return
			}
		}
		nodeHere.err = fmt.Errorf("no node_modules with lockstep's JavaScript libraries (looked in %s): %s",
			strings.Join(candidates, ", "), installNode)
	})
	return nodeHere, nodeHere.err
}
