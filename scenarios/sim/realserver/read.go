package realserver

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
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
func (b *backend) Read(now time.Duration) ([]sim.KeyState, error) {
	ctx, cancel := b.ioContext()
	defer cancel()
	return b.read(ctx, b.served(b.run.Keys()), now)
}

// served are the keys of names this server holds: all of them, but on a
// cluster's master those in the slots it serves (a key elsewhere is
// another master's, and this one would answer MOVED).
func (b *backend) served(names []string) []string {
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

// bySlot groups the indexes of names as one MGET may read them: all
// together, but on a cluster one group per hash slot (an MGET across slots
// is refused with CROSSSLOT).
func (b *backend) bySlot(names []string) [][]int {
	if len(b.run.Target.Slots) == 0 {
		all := make([]int, len(names))
		for i := range names {
			all[i] = i
		}
		return [][]int{all}
	}
	var groups [][]int
	at := map[int]int{}
	for i, k := range names {
		slot := sim.HashSlot(k)
		g, ok := at[slot]
		if !ok {
			g = len(groups)
			at[slot] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// read reads names in one round trip: one MGET for every value a string
// holds (what locks keep) and a PTTL per key; a key last seen as a hash
// adds its HGETALL, one last seen as another type its TYPE. Keys that
// reading leaves unsettled (their type changed) are read again in full, a
// second round trip.
func (b *backend) read(ctx context.Context, names []string, now time.Duration) ([]sim.KeyState, error) {
	if len(names) == 0 {
		return nil, nil
	}
	r, err := b.query(ctx, names)
	if err != nil {
		return nil, err
	}
	found := map[string]sim.KeyState{}
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
			found[k] = ks
		}
	}
	if len(again) > 0 {
		if err := b.readFull(ctx, again, now, found); err != nil {
			return nil, err
		}
	}
	return b.remember(names, found), nil
}

// reading is one pipelined reading of a run's keys.
type reading struct {
	wall   time.Time // when the replies came
	values []any     // each key's MGET reply, by index
	mgets  []mget    // the MGETs they came from: one, or one per slot
	pttls  []*redis.DurationCmd
	hashes []*redis.MapStringStringCmd // nil but for a key last seen as a hash
	types  []*redis.StatusCmd          // nil but for a key last seen as another type
}

// query sends the reading of names.
func (b *backend) query(ctx context.Context, names []string) (*reading, error) {
	n := len(names)
	r := &reading{pttls: make([]*redis.DurationCmd, n),
		hashes: make([]*redis.MapStringStringCmd, n), types: make([]*redis.StatusCmd, n)}
	_, err := b.obs.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, g := range b.bySlot(names) {
			keys := make([]string, len(g))
			for j, i := range g {
				keys[j] = names[i]
			}
			r.mgets = append(r.mgets, mget{p.MGet(ctx, keys...), g})
		}
		for i, k := range names {
			r.pttls[i] = p.PTTL(ctx, k)
			switch b.types[k] {
			case "", "string":
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
	r.values = make([]any, n)
	for _, m := range r.mgets {
		if err := m.cmd.Err(); err != nil {
			return r, err
		}
		vals := m.cmd.Val()
		for j, i := range m.index {
			if j < len(vals) {
				r.values[i] = vals[j]
			} else {
				r.values[i] = short{} // a server that answered MGET short
			}
		}
	}
	return r, nil
}

// mget is one MGET of a reading and the indexes of the keys it read.
type mget struct {
	cmd   *redis.SliceCmd
	index []int
}

// short stands for a value an MGET's reply left out.
type short struct{}

// key is key i of the reading, called name, without its TTL: Type "none"
// when it is gone, settled false when the reading cannot say (its type
// changed since the last one).
func (r *reading) key(i int, name string) (ks sim.KeyState, settled bool, err error) {
	if err := r.pttls[i].Err(); err != nil {
		return ks, false, err
	}
	// Anyone who can write to the server can write under our prefix: what
	// comes from it is text for a terminal only once cleaned.
	ks = sim.KeyState{Key: sim.CleanText(name), Type: "none"}
	if r.pttls[i].Val() == -2 {
		return ks, true, nil // gone, or expired while it was being read
	}
	if _, missing := r.values[i].(short); missing {
		return ks, false, nil // a server that answered MGET short
	} else if v, ok := r.values[i].(string); ok {
		ks.Type, ks.Value = "string", sim.CleanText(v)
		return ks, true, nil
	}
	if h := r.hashes[i]; h != nil && h.Err() == nil && len(h.Val()) > 0 {
		ks.Type, ks.Value = "hash", hashValue(h.Val())
		return ks, true, nil
	}
	if t := r.types[i]; t != nil && t.Err() == nil && !slices.Contains([]string{"none", "string", "hash"}, t.Val()) {
		ks.Type, ks.Value = t.Val(), "("+sim.CleanText(t.Val())+")"
		return ks, true, nil
	}
	return ks, false, nil
}

// readFull reads names with TYPE, PTTL, GET and HGETALL each, in one round
// trip, into found.
func (b *backend) readFull(ctx context.Context, names []string, now time.Duration, found map[string]sim.KeyState) error {
	types := make([]*redis.StatusCmd, len(names))
	pttls := make([]*redis.DurationCmd, len(names))
	strs := make([]*redis.StringCmd, len(names))
	hashes := make([]*redis.MapStringStringCmd, len(names))
	_, err := b.obs.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			types[i], pttls[i] = p.Type(ctx, k), p.PTTL(ctx, k)
			strs[i], hashes[i] = p.Get(ctx, k), p.HGetAll(ctx, k)
		}
		return nil
	})
	wall := time.Now()
	if err != nil && !isRedisReply(err) {
		return err
	}
	for i, k := range names {
		ks, ok, err := fullKey(k, types[i], pttls[i], strs[i], hashes[i])
		if err != nil {
			return err
		}
		if ok {
			ks.TTL = b.virtualTTL(pttls[i].Val(), wall, now)
			found[k] = ks
		}
	}
	return nil
}

// fullKey is key name from its TYPE, PTTL, GET and HGETALL, without its
// TTL; ok false when it is gone. Its type and PTTL must have come back; its
// value only by the command its type takes (a GET of a hash says
// WRONGTYPE).
func fullKey(name string, typ *redis.StatusCmd, pttl *redis.DurationCmd, str *redis.StringCmd, hash *redis.MapStringStringCmd) (ks sim.KeyState, ok bool, err error) {
	if err := errors.Join(typ.Err(), pttl.Err()); err != nil {
		return ks, false, err
	}
	ks = sim.KeyState{Key: sim.CleanText(name), Type: typ.Val()}
	switch {
	case ks.Type == "none" || pttl.Val() == -2:
		return ks, false, nil
	case ks.Type == "string" && errors.Is(str.Err(), redis.Nil):
		return ks, false, nil // gone between TYPE and GET
	case ks.Type == "string":
		ks.Value, err = sim.CleanText(str.Val()), str.Err()
	case ks.Type == "hash":
		ks.Value, err = hashValue(hash.Val()), hash.Err()
	default:
		ks.Value = "(" + sim.CleanText(ks.Type) + ")"
	}
	return ks, err == nil, err
}

// hashValue is a hash as a snapshot shows it: field=value, sorted, cleaned.
func hashValue(m map[string]string) string {
	fields := slices.Sorted(maps.Keys(m))
	for j, f := range fields {
		fields[j] = sim.CleanText(f + "=" + m[f])
	}
	return strings.Join(fields, " ")
}

// virtualTTL is the virtual time left after now of a key whose PTTL, read
// at wall, was pttl: -1 for a key without expiry (PTTL -1), at least a
// millisecond for one with (PTTL 0: less than a millisecond left).
func (b *backend) virtualTTL(pttl time.Duration, wall time.Time, now time.Duration) time.Duration {
	if pttl < 0 {
		return -1
	}
	due := wall.Add(pttl).Sub(b.run.Start())
	// A millisecond of real time is worth more than that in virtual time;
	// round to what was measured.
	ttl := (b.run.ToVirtual(due) - now).Round(10 * time.Millisecond)
	return max(ttl, time.Millisecond)
}

// remember keeps the type of each key found, for the next reading, and
// returns the keys found in the order of names (sorted).
func (b *backend) remember(names []string, found map[string]sim.KeyState) []sim.KeyState {
	b.types = map[string]string{}
	var keys []sim.KeyState
	for _, k := range names {
		if ks, ok := found[k]; ok {
			keys = append(keys, ks)
			b.types[k] = ks.Type
		}
	}
	return keys
}
