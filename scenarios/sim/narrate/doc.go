// Package narrate is everything lockstep's engine says, in English and
// Chinese (text.Text): each event's sentence (Event.Text) and its short
// label (Event.Short). It says what it is given — names, durations,
// errors, what a command changed — and never looks at a run; the engine
// (package sim) calls it, and it imports only packages trace, command,
// text and lockimpl.
//
// A client and its lock: Wants, Prep, Work, Fail, Leaves, Acquired,
// Refused, Quorum, Validity, Released, Reenter, Reentered, SelfRefused,
// Leave, Left, LeftWithoutLock, GaveUp, Waited, Lost, Wait, BgStopped.
//
// A command: Command, CommandLate, from what it changed (Change, of a
// ChangeKind: ChangeCreated, ChangeDeleted, ChangeValue, ChangeExtended,
// ChangeTTLSet).
//
// The servers and the clients' processes: Expired, ExpiredEarly, Hang,
// Unhang, Slow, SlowSend, Held, Unheld, Replicated, ReplicatedReal,
// PrimaryDied, Promoted, NodeDown, Partition, DropReplies, Heal,
// ServerStopped, ServerRestarted, ClockJump, Rejoined, Crash, Pause,
// Resume; a failover the Sentinels decide: Sentinel, PrimaryDiedSentinel.
//
// The protected resource: Read, Stamp, Write (of a WriteResult), SoldOut.
//
// The short labels: Same, ShortCommand, ShortAcquired, ShortQuorum,
// ShortRefused, ShortReleased, ShortWrite, ShortSlow.
//
// What every narration uses: Secs, SecsZH, AndList, AndListZH, Plural.
package narrate
