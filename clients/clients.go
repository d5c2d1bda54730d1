// Package clients holds lockstep's agents for locks written in other
// languages, and the adapters that make the libraries' locks, as files the
// agent's runtime reads: python/ (lockstep_agent.py, and adapters/ for the
// Python locks lockstep lists) and node/ (lockstep_agent.js, adapters/ for
// the JavaScript ones, and the package.json that pins their libraries). Package external writes them out and
// starts them; docs/external.md says how an agent and an adapter speak with
// lockstep.
package clients

import "embed"

// Files are the agents and adapters, under python/ and node/. Node's
// libraries are not among them: npm ci in clients/node installs them
// (package-lock.json pins each), and the agent finds them by NODE_PATH.
//
//go:embed python/*.py python/adapters/*.py node/*.js node/adapters/*.js
var Files embed.FS
