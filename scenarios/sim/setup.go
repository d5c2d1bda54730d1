package sim

import "github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

// This file names the parts of a run that package model defines, for
// sim's callers: a scenario's fixed part (Setup) and a client's program
// (Program), with the defaults a run fills in.

// Setup is the fixed part of a scenario: the lock, the servers, the data
// (model.Setup).
type Setup = model.Setup

// Program is what one client does (model.Program).
type Program = model.Program

// DefaultTTL is the lease when a Setup gives none.
const DefaultTTL = model.DefaultTTL

// DefaultDownAfter is Sentinel's wait when a Setup gives none: Sentinel's
// own default for down-after-milliseconds.
const DefaultDownAfter = model.DefaultDownAfter

// DefaultRetry is the wait between acquire attempts when a Program gives none.
const DefaultRetry = model.DefaultRetry

// ErrOwnKeyEmbedded is a client's own key on real servers (Setup.ClientKeys):
// the run's ACL user is made for the setup's key alone.
var ErrOwnKeyEmbedded = model.ErrOwnKeyEmbedded

// ErrStalled is in the error of a run that gave up lock code which sent
// nothing for the stall bound: it spins, computes for longer than the
// bound, or waits for something outside the run.
var ErrStalled = model.ErrStalled
