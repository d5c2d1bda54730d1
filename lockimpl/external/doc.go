// Package external runs a lock written in another language as a client's
// lock in a lesson: the library's own code, unmodified, in an agent
// process (clients/python/lockstep_agent.py), whose Redis client connects
// to lockstep's ports (resp.go) where every command is a move the
// scheduler orders. lockstep drives the agent through a control protocol
// of JSON lines (agent.go) on the run's clock (drive.go), and knows when
// it is quiet without it being in the run's bubble (outside.go).
//
// New makes a client's lock of a Spec; package lockimpl lists the locks in
// other languages (lockimpl.Others) and takes a lock of one's own by its
// file. docs/external.md is the whole story: the protocol, the adapter a
// lock of one's own is, what it costs, and what is not built yet.
package external
