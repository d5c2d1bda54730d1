package invariant

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// ownership: no release or renewal removes or extends a lock value the
// client did not write.
type ownership struct{}

func init() { register(2, ownership{}) }

func (ownership) Info() Info {
	return Info{ID: Ownership, Name: text.Text{EN: Ownership, ZH: "归属"},
		Rule: text.Text{
			EN: "no release or renewal removes or extends a lock value the client did not write",
			ZH: "释放或续期不会删除或延长不是自己写入的锁"}}
}

func (ownership) New(Settings) Check { return ownershipCheck{} }

// ownershipCheck is judged after every command: a command of client X
// that deleted, overwrote or extended the TTL of the lock key whose value
// another client wrote breaks it. Writers are tracked per server from the
// changes each command makes (package sim, when a command is done): a key
// names its writer in trace.KeyState.Writer.
type ownershipCheck struct{}

// Observe implements Check.
func (ownershipCheck) Observe(_ World, o Observation) []text.Text {
	if o.Kind != Command {
		return nil
	}
	c := o.Client
	var out []text.Text
	for _, ch := range o.Changes {
		if own, others := shares(ch.Before, c); own {
			// A holder's change to a hash it holds a share of is its
			// own, unless it deletes the others' holds with it.
			if ch.Kind == narrate.ChangeDeleted && ch.Key == c.Key && len(others) > 0 {
				out = append(out, textShares(c.Name, others))
			}
			continue
		}
		if ch.Kind == narrate.ChangeValue && joins(ch.Before, ch.After) {
			continue // a reader's field beside the others'
		}
		switch ch.Kind {
		case narrate.ChangeValue, narrate.ChangeDeleted, narrate.ChangeExtended:
			// An overwrite takes another client's lock from under it.
			if ch.Key == c.Key && ch.Before.Writer != "" && ch.Before.Writer != c.Name {
				out = append(out, textOwnership(c.Name, ch))
			}
		}
	}
	if len(out) == 0 && extendedOther(o.Cmd, o.Err, c.Key) {
		// An expire command that said yes renewed the lock, whether or not
		// its TTL moved by more than a real server's reading can tell
		// (ttlTolerance): a renewal of another client's lock is one.
		if k, ok := findKey(o.Before, c.Key); ok && k.Writer != "" && k.Writer != c.Name && !sharedBy(k, c) {
			after, _ := findKey(o.After, c.Key)
			out = append(out, textOwnership(c.Name, narrate.Change{Key: k.Key, Kind: narrate.ChangeExtended, Before: k, After: after}))
		}
	}
	return out
}

// extendedOther says whether cmd is a plain expire command on key that
// succeeded: EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT answering 1.
func extendedOther(cmd redis.Cmder, err error, key string) bool {
	if err != nil {
		return false
	}
	switch cmd.Name() {
	case "expire", "pexpire", "expireat", "pexpireat":
	default:
		return false
	}
	args := cmd.Args()
	ic, ok := cmd.(*redis.BoolCmd)
	return ok && ic.Val() && len(args) > 1 && fmt.Sprint(args[1]) == key
}

// shares says, of a hash lock key before a command of client c, whether c
// holds a share of it (its claim is a field: a read-write lock's readers
// each have one) and which other holds it keeps: the other fields whose
// value is a count.
func shares(k trace.KeyState, c Client) (own bool, others []string) {
	if k.Key != c.Key || !sharedBy(k, c) {
		return false, nil
	}
	for _, pair := range strings.Fields(k.Value) {
		f, v := trace.CutField(pair)
		if _, err := strconv.Atoi(v); err == nil && f != c.Claim {
			others = append(others, f)
		}
	}
	return true, others
}

// joins says whether a change of hash before into after only adds fields:
// every field before keeps its value, as when a reader joins the readers of
// a read-write lock. It takes nothing from whoever wrote them.
func joins(before, after trace.KeyState) bool {
	if before.Type != "hash" || after.Type != "hash" {
		return false
	}
	kept := strings.Fields(after.Value)
	for _, pair := range strings.Fields(before.Value) {
		if !slices.Contains(kept, pair) {
			return false
		}
	}
	return true
}

// sharedBy says whether hash k holds client c's claim as a field.
func sharedBy(k trace.KeyState, c Client) bool {
	if k.Type != "hash" || c.Claim == "" {
		return false
	}
	for _, pair := range strings.Fields(k.Value) {
		if f, _ := trace.CutField(pair); f == c.Claim {
			return true
		}
	}
	return false
}

func textShares(c string, others []string) text.Text {
	return text.Text{EN: fmt.Sprintf("%s deleted the lock with %s's hold still in it", c, narrate.AndList(others)),
		ZH: fmt.Sprintf("%s 删除了锁，而 %s 的持有还在其中（误删）", c, narrate.AndListZH(others))}
}

func textOwnership(c string, ch narrate.Change) text.Text {
	if ch.Kind == narrate.ChangeValue {
		return text.Text{EN: fmt.Sprintf("%s overwrote the lock that %s wrote (%s → %s)", c, ch.Before.Writer, ch.Before.Value, ch.After.Value),
			ZH: fmt.Sprintf("%s 覆盖了 %s 写入的锁（%s → %s）", c, ch.Before.Writer, ch.Before.Value, ch.After.Value)}
	}
	if ch.Kind == narrate.ChangeDeleted {
		return text.Text{EN: fmt.Sprintf("%s deleted the lock that %s wrote", c, ch.Before.Writer),
			ZH: fmt.Sprintf("%s 删除了 %s 写入的锁（误删）", c, ch.Before.Writer)}
	}
	return text.Text{EN: fmt.Sprintf("%s extended the lock that %s wrote", c, ch.Before.Writer),
		ZH: fmt.Sprintf("%s 延长了 %s 写入的锁", c, ch.Before.Writer)}
}
