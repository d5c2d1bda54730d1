// Package clients holds lockstep's agents for locks written in other
// languages, and the adapters that make the libraries' locks, as files the
// agent's runtime reads: python/ (lockstep_agent.py, and adapters/ for the
// Python locks lockstep lists). Package external writes them out and
// starts them; docs/external.md says how an agent and an adapter speak with
// lockstep.
package clients

import "embed"

// Files are the agents and adapters, under python/.
//
//go:embed python/*.py python/adapters/*.py
var Files embed.FS
