package realserver

import (
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// This file reads the run's keys for the engine's snapshots, on the
// observer's connection. A snapshot follows every command and every step of
// time, and `redis-cli MONITOR` shows each command of a reading as a line
// among the lock's: a reading is one round trip of as few commands as there
// can be. (A Lua script would be one command, but MONITOR shows every call
// inside it too, on a line "[0 lua]" that says nothing of the connection:
// the lines could no longer be told from a lock script's.)

// Read reads the run's keys (those its commands named, RealRun.Keys):
// values, and TTLs converted to virtual time left after now. Nothing else
// on the server is read.
func (b *server) Read(now time.Duration) ([]trace.KeyState, error) {
	ctx, cancel := b.ioContext()
	defer cancel()
	return b.read(ctx, b.served(b.run.Keys()), now)
}

// served are the keys of names this server holds: all of them, but on a
// cluster's master those in the slots it serves (a key elsewhere is
// another master's, and this one would answer MOVED).
func (b *server) served(names []string) []string {
	t := b.run.Target
	if len(t.Slots) == 0 {
		return names
	}
	var out []string
	for _, k := range names {
		if m := t.NodeFor(k); m != nil && m.Addr == b.opts.Addr {
			out = append(out, k)
		}
	}
	return out
}

// read reads names in one round trip: a PTTL per key and what its value
// takes, by the type it had at the last reading — a string (what locks
// keep) or a new key its first MaxValue+1 bytes with GETRANGE, and with
// STRLEN its length when it was longer than a snapshot keeps; a hash its
// HGETALL; another type its TYPE. No more of a string comes than a
// snapshot keeps (sim.CutHead): a lock's 512 MB value is never downloaded.
// Keys that reading leaves unsettled (their type changed, a string grew
// past MaxValue, or is empty) are read again in full, a second round trip.
//
// A reading the server cut off (it closed the connection: io.EOF, or a
// reset) is made once more, on a new connection: a Sentinel closes every
// ordinary client's connection to the replica it promotes (CLIENT KILL
// TYPE normal), the observer's among them, and a reading changes nothing.
// A timeout is not read again: a stalled server would take twice as long
// to be named.
func (b *server) read(ctx context.Context, names []string, now time.Duration) ([]trace.KeyState, error) {
	keys, err := b.readOnce(ctx, names, now)
	if cutOff(err) && ctx.Err() == nil {
		keys, err = b.readOnce(ctx, names, now)
	}
	return keys, err
}

// cutOff says the server closed the connection under a call.
func cutOff(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (b *server) readOnce(ctx context.Context, names []string, now time.Duration) ([]trace.KeyState, error) {
	if len(names) == 0 {
		return nil, nil
	}
	r, err := b.query(ctx, names)
	if err != nil {
		return nil, err
	}
	found, long := map[string]trace.KeyState{}, map[string]bool{}
	var again []string
	for i, k := range names {
		ks, settled, err := r.key(i, k)
		switch {
		case err != nil:
			return nil, err
		case !settled:
			again = append(again, k)
		case ks.Type != "none":
			ks.TTL = b.virtualTTL(r.pttls[i].Val(), r.wall, now)
			found[k], long[k] = ks, r.lens[i] != nil && r.lens[i].Val() > command.MaxValue
		}
	}
	if len(again) > 0 {
		if err := b.readFull(ctx, again, now, found, long); err != nil {
			return nil, err
		}
	}
	return b.remember(names, found, long), nil
}

// reading is one pipelined reading of a run's keys, by index.
type reading struct {
	wall   time.Time // when the replies came
	pttls  []*redis.DurationCmd
	heads  []*redis.StringCmd          // GETRANGE, but for a key last seen as a hash or another type
	lens   []*redis.IntCmd             // STRLEN, for a key last seen as a long string
	hashes []*redis.MapStringStringCmd // nil but for a key last seen as a hash
	types  []*redis.StatusCmd          // nil but for a key last seen as another type
}

// query sends the reading of names.
func (b *server) query(ctx context.Context, names []string) (*reading, error) {
	n := len(names)
	r := &reading{pttls: make([]*redis.DurationCmd, n), heads: make([]*redis.StringCmd, n),
		lens: make([]*redis.IntCmd, n), hashes: make([]*redis.MapStringStringCmd, n), types: make([]*redis.StatusCmd, n)}
	_, err := b.obs.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			r.pttls[i] = p.PTTL(ctx, k)
			switch b.types[k] {
			case "", "string":
				r.heads[i] = p.GetRange(ctx, k, 0, command.MaxValue)
				if b.long[k] {
					r.lens[i] = p.StrLen(ctx, k)
				}
			case "hash":
				r.hashes[i] = p.HGetAll(ctx, k)
			default:
				r.types[i] = p.Type(ctx, k)
			}
		}
		return nil
	})
	r.wall = time.Now()
	if err != nil && !isRedisReply(err) {
		return nil, err // the connection's, not a reply's
	}
	return r, nil
}

// key is key i of the reading, called name, without its TTL: Type "none"
// when it is gone, settled false when the reading cannot say (its type
// changed since the last one, or str cannot).
func (r *reading) key(i int, name string) (ks trace.KeyState, settled bool, err error) {
	if err := r.pttls[i].Err(); err != nil {
		return ks, false, err
	}
	// Anyone who can write to the server can write under our prefix: what
	// comes from it is text for a terminal only once cleaned.
	ks = trace.KeyState{Key: text.Clean(name), Type: "none"}
	if r.pttls[i].Val() == -2 {
		return ks, true, nil // gone, or expired while it was being read
	}
	if r.heads[i] != nil {
		v, ok, err := r.str(i)
		if ok {
			ks.Type, ks.Value = "string", text.Clean(v)
		}
		return ks, ok, err
	}
	if h := r.hashes[i]; h != nil && h.Err() == nil && len(h.Val()) > 0 {
		ks.Type, ks.Value = "hash", command.Cut(hashValue(h.Val()), command.MaxValue)
		return ks, true, nil
	}
	if t := r.types[i]; t != nil && t.Err() == nil && !slices.Contains([]string{"none", "string", "hash"}, t.Val()) {
		ks.Type, ks.Value = t.Val(), "("+text.Clean(t.Val())+")"
		return ks, true, nil
	}
	return ks, false, nil
}

// str is key i's value as a snapshot keeps it, from its GETRANGE and its
// STRLEN; ok false when the reading cannot say: the key holds another type
// now, or nothing (an empty string, or a key gone between its PTTL and its
// GETRANGE), or more than a snapshot keeps while its length was not asked.
func (r *reading) str(i int) (v string, ok bool, err error) {
	head, n := r.heads[i], r.lens[i]
	err = head.Err()
	if n != nil {
		err = errors.Join(err, n.Err())
	}
	if err != nil {
		if isWrongType(err) {
			return "", false, nil
		}
		return "", false, err
	}
	switch {
	case head.Val() == "":
		return "", false, nil
	case n == nil && len(head.Val()) > command.MaxValue:
		return "", false, nil
	case n == nil:
		return head.Val(), true, nil
	}
	return command.CutHead(head.Val(), int(n.Val()), command.MaxValue), true, nil
}

// isWrongType says whether err is Redis's answer to a command on a key of
// another type.
func isWrongType(err error) bool { return strings.Contains(err.Error(), "WRONGTYPE") }

// readFull reads names with TYPE, PTTL, GETRANGE, STRLEN and HGETALL each,
// in one round trip, into found, and into long those that are strings
// longer than a snapshot keeps.
func (b *server) readFull(ctx context.Context, names []string, now time.Duration, found map[string]trace.KeyState, long map[string]bool) error {
	types := make([]*redis.StatusCmd, len(names))
	pttls := make([]*redis.DurationCmd, len(names))
	heads := make([]*redis.StringCmd, len(names))
	lens := make([]*redis.IntCmd, len(names))
	hashes := make([]*redis.MapStringStringCmd, len(names))
	_, err := b.obs.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			types[i], pttls[i] = p.Type(ctx, k), p.PTTL(ctx, k)
			heads[i], lens[i] = p.GetRange(ctx, k, 0, command.MaxValue), p.StrLen(ctx, k)
			hashes[i] = p.HGetAll(ctx, k)
		}
		return nil
	})
	wall := time.Now()
	if err != nil && !isRedisReply(err) {
		return err
	}
	for i, k := range names {
		ks, ok, err := fullKey(k, types[i], pttls[i], stringRead{heads[i], lens[i]}, hashes[i])
		if err != nil {
			return err
		}
		if ok {
			ks.TTL = b.virtualTTL(pttls[i].Val(), wall, now)
			found[k], long[k] = ks, ks.Type == "string" && lens[i].Val() > command.MaxValue
		}
	}
	return nil
}

// stringRead is a string's GETRANGE and STRLEN.
type stringRead struct {
	head *redis.StringCmd
	len  *redis.IntCmd
}

// fullKey is key name from its TYPE, PTTL, GETRANGE, STRLEN and HGETALL,
// without its TTL; ok false when it is gone. Its type and PTTL must have
// come back; its value only by the commands its type takes (a GETRANGE of
// a hash says WRONGTYPE).
func fullKey(name string, typ *redis.StatusCmd, pttl *redis.DurationCmd, str stringRead, hash *redis.MapStringStringCmd) (ks trace.KeyState, ok bool, err error) {
	if err := errors.Join(typ.Err(), pttl.Err()); err != nil {
		return ks, false, err
	}
	ks = trace.KeyState{Key: text.Clean(name), Type: typ.Val()}
	switch {
	case ks.Type == "none" || pttl.Val() == -2:
		return ks, false, nil
	case ks.Type == "string":
		if err = errors.Join(str.head.Err(), str.len.Err()); err == nil {
			ks.Value = text.Clean(command.CutHead(str.head.Val(), int(str.len.Val()), command.MaxValue))
		}
	case ks.Type == "hash":
		ks.Value, err = command.Cut(hashValue(hash.Val()), command.MaxValue), hash.Err()
	default:
		ks.Value = "(" + text.Clean(ks.Type) + ")"
	}
	return ks, err == nil, err
}

// hashValue is a hash as a snapshot shows it: field=value, sorted, cleaned.
func hashValue(m map[string]string) string {
	fields := slices.Sorted(maps.Keys(m))
	for j, f := range fields {
		fields[j] = text.Clean(f + "=" + m[f])
	}
	return strings.Join(fields, " ")
}

// virtualTTL is the virtual time left after now of a key whose PTTL, read
// at wall, was pttl: -1 for a key without expiry (PTTL -1), at least a
// millisecond for one with (PTTL 0: less than a millisecond left).
func (b *server) virtualTTL(pttl time.Duration, wall time.Time, now time.Duration) time.Duration {
	if pttl < 0 {
		return -1
	}
	due := wall.Add(pttl).Sub(b.run.Start())
	// A millisecond of real time is worth more than that in virtual time;
	// round to what was measured.
	ttl := (b.run.ToVirtual(due) - now).Round(10 * time.Millisecond)
	return max(ttl, time.Millisecond)
}

// remember keeps the type of each key found, and which are long strings,
// for the next reading, and returns the keys found in the order of names
// (sorted).
func (b *server) remember(names []string, found map[string]trace.KeyState, long map[string]bool) []trace.KeyState {
	b.types, b.long = map[string]string{}, long
	var keys []trace.KeyState
	for _, k := range names {
		if ks, ok := found[k]; ok {
			keys = append(keys, ks)
			b.types[k] = ks.Type
		}
	}
	return keys
}
