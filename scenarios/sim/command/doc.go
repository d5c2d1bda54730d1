// Package command is a Redis command as lockstep's engine reads it: how a
// trace shows it, what the guard lets a lock send, and the errors lock
// clients get from the engine. It knows nothing of a run; the engine
// (package sim), the backends and the narration read commands through it.
//
// Showing a command: Format (as redis-cli would take it, a script by its
// name), FormatArgs (the same from a trace's arguments), Args (the
// arguments a trace keeps), FormatReply and Reply (a reply as redis-cli
// prints it), StringReply, IsReply (a reply, not a failure); what a trace
// keeps of a value: MaxValue, MaxArg, Cut, CutHead, KeptArgs.
//
// Transactions: a transaction is one command, its EXEC, standing for its
// batch (Batch, BatchOf, TrackTx, IsTx, InBatch, Plain, FirstErr).
//
// The guard, what a lock may do on a server: LockCommands, Keyless,
// KeyPatterns, OwnKey, KeysOf, NamedKeys, RefusalOf, ClientRefusal,
// SessionRefusal, RefusedHere, IsRefusal.
//
// Scripts: RunsScript, ScriptCache (NOSCRIPT for a script a server was not
// given), AsRedisScriptError (an embedded server's script error in Redis's
// words), WithFallback and ScriptFallback (who sends the script whole after
// NOSCRIPT).
//
// Errors: NodeDownError, PartitionError, NotSentError, GaveUpError, and
// the two that end a run as the lock's own failure, RefusedError and
// RunawayScriptError.
package command
