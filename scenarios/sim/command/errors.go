package command

import (
	"fmt"
	"time"
)

// This file holds the errors the engine gives lock clients and runs: a
// server down, a partition, a command never sent or given up on the way,
// and the two ways a run ends as the lock's own failure (a refused
// command, a script that ran away).

// NodeDownError is what a command gets when its server is down.
type NodeDownError struct {
	Server string
	Lost   bool // the connection dropped under the command
}

// Error says what happened, as the trace shows it.
func (e *NodeDownError) Error() string {
	if e.Lost {
		return fmt.Sprintf("connection to %s lost: server is down", e.Server)
	}
	return fmt.Sprintf("dial %s: connection refused: server is down", e.Server)
}

// PartitionError is what a command gets when its client is cut off from the
// server by a network partition: nothing reaches the server.
type PartitionError struct {
	Client, Server string
	// ReplyLost: the command reached the server and ran there; its reply
	// did not come back (DropReplies).
	ReplyLost bool
}

// Error says what happened, as the trace shows it.
func (e *PartitionError) Error() string {
	if e.ReplyLost {
		return fmt.Sprintf("%s's command ran on %s, but the reply was lost: i/o timeout (network partition)", e.Client, e.Server)
	}
	return fmt.Sprintf("%s cannot reach %s: i/o timeout (network partition)", e.Client, e.Server)
}

// NotSentError is what the trace shows for a command whose context's
// deadline passed while it waited at the gate: it was never sent.
type NotSentError struct {
	Client string
	Err    error
}

// Error says what happened, as the trace shows it.
func (e *NotSentError) Error() string { return e.Err.Error() }

// Unwrap is the error underneath.
func (e *NotSentError) Unwrap() error { return e.Err }

// GaveUpError is what the trace shows for a command whose client stopped
// waiting while it was on its way to a slow server: the client's error
// (Err, the context's), and what became of the command.
type GaveUpError struct {
	Client, Server string
	Waited         time.Duration // from the send to the give-up
	Due            time.Duration // when the command reaches the server, in the run's time
	Err            error
}

// Error says what happened, as the trace shows it.
func (e *GaveUpError) Error() string { return e.Err.Error() }

// Unwrap is the error underneath.
func (e *GaveUpError) Unwrap() error { return e.Err }

// RefusedError is how a run ends when a lock sent what the guard refused:
// the lock's own failure, with the server's words.
type RefusedError struct {
	Impl, Actor, Command, Server, Key string
	Err                               error
}

// Error says what happened, as the trace shows it.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("the lock implementation %s: %s's %s was refused by %s: %v (a lock may send only the commands locks use, on its own keys: %s, %s:… and {%s}…)",
		e.Impl, e.Actor, e.Command, e.Server, e.Err, e.Key, e.Key, e.Key)
}

// Unwrap is the error underneath.
func (e *RefusedError) Unwrap() error { return e.Err }

// RunawayScriptError is how a run ends when a lock's script ran past the
// server's busy threshold: the lock's own failure.
type RunawayScriptError struct {
	Impl, Actor, Command, Server string
	How                          string // how lockstep stopped it
	Err                          string // the lock's own error, as text: not a connection's, to the matrix
}

// Error says what happened, as the trace shows it.
func (e *RunawayScriptError) Error() string {
	return fmt.Sprintf("the lock implementation %s: %s's %s ran away on %s: its script was still running when the reply was due (%s), and lockstep stopped it with %s; a lock's script must end",
		e.Impl, e.Actor, e.Command, e.Server, e.Err, e.How)
}
