// Package backend is the server side of a run: the servers the engine
// (package sim) reaches, and what a run on real servers is made of. The
// engine calls a server only through a Backend; package realserver
// implements one for redis-server and imports this package, not the
// engine.
//
// Servers: Backend, and what some can do besides — Follower (a replica
// that replicates by itself), Cutter (one whose stream the Sentinels cut),
// TimeHolder (one that holds a run's time still), ScriptStopper (one that
// stops a script that keeps it busy).
//
// The embedded server, the engine's own: Embedded (miniredis on virtual
// time, made by NewEmbedded), Stored (a key's value whole, as replication
// copies it), EmbeddedConn (a lock client's connection to one), and Redis
// Cluster's slot rule (Slots, HashSlot, IsCrossSlot).
//
// A run on real servers: Target (the servers, the prefix, the time scale,
// NewBackend) with SlotRange; RealRun (one run's keys, context and clock,
// made by NewRealRun); the Sentinels (WatchSentinels, SentinelWatch,
// SentinelEvent, SentinelName); a live demo's pace (Pacer, WithPacer,
// PacerFrom); a server out of reach (Unreachable); what a cleanup left
// (LeftBehind, LeftBehinds, LeftBehindError); and the errors for a run a
// target cannot host (ErrNeedsReplica, ErrNeedsCluster, ErrNeedsNodes,
// ErrEmbeddedOnly, ErrNoBackend).
package backend
