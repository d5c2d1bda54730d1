package narrate

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is what one command changed on a server's keys, as the engine
// finds it and the narration says it.

// ChangeKind is what a command did to one key.
type ChangeKind int

// ChangeCreated, ChangeDeleted, ChangeValue, ChangeExtended and
// ChangeTTLSet are the kinds of Change.
const (
	ChangeCreated  ChangeKind = iota // the key is new
	ChangeDeleted                    // the key is gone
	ChangeValue                      // its value changed
	ChangeExtended                   // TTL moved later
	ChangeTTLSet                     // TTL added or shortened
)

// Change is what one command did to one key (Key): its Kind, and the key
// as it was Before and is After, from the server's snapshots.
type Change struct {
	Key           string
	Kind          ChangeKind
	Before, After trace.KeyState
}
