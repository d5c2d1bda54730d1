package realredis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/sentinel"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// This file is lockstep clean: what runs killed outright (SIGKILL, a crash,
// a power cut) left on real servers, found and removed. A run removes what
// it made on every path it lives through; a killed one cannot. Everything
// it makes has a name only lockstep makes, and clean matches those names
// exactly, so that nothing of the user's can match:
//
//   - ACL users lockstep-run-<16 hex> and lockstep-probe-<16 hex>
//     (realserver.IsUserName);
//   - keys under a run's prefix, lockstep:<8 hex>: (NewPrefix; bench's is
//     lockstep-bench:<8 hex>:), at the start of the key or right after the
//     "{" of a hash tag ("{lockstep:…}:fence"): the run's ACL user may
//     write no others (sim.KeyPatterns);
//   - the lease on a replica, lockstep:replica-lease:<run id> (LeaseKey);
//   - master names on the Sentinels, lockstep-lockstep-<8 hex>…
//     (backend.SentinelName);
//   - the replica, when it shows it was the first server's: a primary
//     whose previous replication id is the first server's (promoted by a
//     run's failover, REPLICAOF NO ONE), or a replica with the first
//     server's replication id whose master, not the first server, does not
//     answer (the run's relay, gone with its process).

var (
	runKeyName   = regexp.MustCompile(`^\{?lockstep(-bench)?:[0-9a-f]{8}:`)
	leaseKeyName = regexp.MustCompile(`^lockstep:replica-lease:[0-9a-f]{40}$`)
	sentinelName = regexp.MustCompile(`^lockstep-lockstep-[0-9a-f]{8}(-|$)`)
)

// keyMatch is the SCAN pattern that narrows the keyspace to the keys
// runKeyName and leaseKeyName then judge: one pass, whichever form.
const keyMatch = "*lockstep*"

// IsRunKey says whether key is one a lockstep run (or bench) writes.
func IsRunKey(key string) bool { return runKeyName.MatchString(key) }

// IsLeaseKey says whether key is the lease a run takes on a replica.
func IsLeaseKey(key string) bool { return leaseKeyName.MatchString(key) }

// IsSentinelName says whether name is a master name a run gives the
// Sentinels.
func IsSentinelName(name string) bool { return sentinelName.MatchString(name) }

// Kind is what a leftover is. The kinds are in the order clean removes
// them: the Sentinels forget the run's master first, so that none acts on
// the replica while it is pointed back; the replica comes last, so that it
// resynchronises from a first server without the run's keys.
type Kind int

const (
	KindSentinel Kind = iota // a master name on the Sentinels
	KindKey                  // a key under a run's prefix
	KindLease                // the lease on a replica
	KindUser                 // an ACL user
	KindReplica              // the replica, to point back at the first server
)

// Leftover is one thing an earlier run left.
type Leftover struct {
	Kind Kind
	// Name is the user's, the key's or the master name; the replica's
	// address.
	Name string
	// Where is the server's address; for a master name, the Sentinels'.
	Where string
	// Detail is a key's TTL, the lease's holder, the address a master name
	// watches, what the replica does.
	Detail string
	srv    *cleanServer
}

// String says what l is, where.
func (l Leftover) String() string {
	name, detail := text.Clean(l.Name), text.Clean(l.Detail)
	switch l.Kind {
	case KindSentinel:
		return fmt.Sprintf("Sentinel master name %s on %s (%s)", name, l.Where, detail)
	case KindKey:
		return fmt.Sprintf("key %s on %s (%s)", name, l.Where, detail)
	case KindLease:
		return fmt.Sprintf("replica lease %s on %s (%s)", name, l.Where, detail)
	case KindUser:
		return fmt.Sprintf("ACL user %s on %s", name, l.Where)
	}
	return fmt.Sprintf("replica %s: %s", name, detail)
}

// Removed says what removing l did.
func (l Leftover) Removed(primary string) string {
	if l.Kind == KindReplica {
		return fmt.Sprintf("pointed the replica %s back at %s (%s)", l.Name, primary, replicaOf(primary))
	}
	return "removed " + l.String()
}

// nouns name each kind, one and many.
var nouns = map[Kind][2]string{
	KindSentinel: {"Sentinel master name", "Sentinel master names"},
	KindKey:      {"key", "keys"},
	KindLease:    {"replica lease", "replica leases"},
	KindUser:     {"ACL user", "ACL users"},
	KindReplica:  {"replica to point back", "replicas to point back"},
}

// Count says how many of each kind ls holds: "24 ACL users, 6 keys".
func Count(ls []Leftover) string {
	n := map[Kind]int{}
	for _, l := range ls {
		n[l.Kind]++
	}
	var parts []string
	for k := KindSentinel; k <= KindReplica; k++ {
		switch {
		case n[k] == 1:
			parts = append(parts, "1 "+nouns[k][0])
		case n[k] > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n[k], nouns[k][1]))
		}
	}
	return strings.Join(parts, ", ")
}

// ErrGone is a leftover that was gone when clean came to remove it: a key
// whose TTL ran out in between, a user another clean removed.
var ErrGone = errors.New("gone already")

// cleanServer is a server clean looks at.
type cleanServer struct {
	opts *redis.Options
	c    *redis.Client
	keys bool // a primary: its keys are scanned (a replica's are its primary's)
}

// Cleaner finds and removes what earlier runs left on a set of servers.
type Cleaner struct {
	servers   []*cleanServer // the primaries, then the replica, if any
	primary   *redis.Options // the first server: the replica's primary
	replica   *cleanServer
	sentinels *sentinel.Group
	// notice: only users, keys and master names, and at most
	// noticeScanCalls SCAN calls a server (Notice).
	notice bool
}

// Servers are the addresses clean looks at, for its summary.
func (cl *Cleaner) Servers() []string {
	var out []string
	for _, s := range cl.servers {
		if s == cl.replica {
			out = append(out, "the replica "+s.opts.Addr)
		} else {
			out = append(out, s.opts.Addr)
		}
	}
	if cl.sentinels != nil {
		out = append(out, fmt.Sprintf("%d Sentinels", len(cl.sentinels.Addrs())))
	}
	return out
}

// Primary is the first server's address.
func (cl *Cleaner) Primary() string { return cl.primary.Addr }

// add adds a server to look at.
func (cl *Cleaner) add(opts *redis.Options, keys bool) *cleanServer {
	s := &cleanServer{opts: opts, c: redis.NewClient(checkOptions(opts)), keys: keys}
	cl.servers = append(cl.servers, s)
	return s
}

// Close closes the cleaner's clients.
func (cl *Cleaner) Close() error {
	var errs []error
	for _, s := range cl.servers {
		errs = append(errs, s.c.Close())
	}
	if cl.sentinels != nil {
		errs = append(errs, cl.sentinels.Close())
	}
	return errors.Join(errs...)
}

// Find lists what earlier runs left, in the order Remove removes it. What
// it could not look at is in the error, beside what it found elsewhere.
func (cl *Cleaner) Find(ctx context.Context) ([]Leftover, error) {
	var found []Leftover
	var errs []error
	if cl.sentinels != nil {
		ls, err := cl.masterNames(ctx)
		found, errs = append(found, ls...), append(errs, err)
	}
	for _, s := range cl.servers {
		if s.keys {
			ls, err := cl.keys(ctx, s)
			found, errs = append(found, ls...), append(errs, err)
		}
		ls, err := users(ctx, s)
		found, errs = append(found, ls...), append(errs, err)
	}
	if cl.replica != nil && !cl.notice {
		l, err := cl.replicaLeftover(ctx)
		if l != nil {
			found = append(found, *l)
		}
		errs = append(errs, err)
	}
	slices.SortStableFunc(found, func(a, b Leftover) int { return int(a.Kind) - int(b.Kind) })
	return found, errors.Join(errs...)
}

// masterNames are the Sentinels' master names that are a run's.
func (cl *Cleaner) masterNames(ctx context.Context) ([]Leftover, error) {
	watched, err := cl.sentinels.Watched(ctx)
	if err != nil {
		return nil, err
	}
	addrs := cl.sentinels.Addrs()
	on, watching := map[string][]string{}, map[string]string{}
	for i, names := range watched {
		for name, addr := range names {
			if IsSentinelName(name) {
				on[name] = append(on[name], addrs[i])
				watching[name] = cmp.Or(watching[name], addr)
			}
		}
	}
	var out []Leftover
	for _, name := range slices.Sorted(maps.Keys(on)) {
		out = append(out, Leftover{Kind: KindSentinel, Name: name, Where: strings.Join(on[name], ", "),
			Detail: "watching " + watching[name]})
	}
	return out, nil
}

// users are the ACL users on s that lockstep made, but the one clean is
// connected as.
func users(ctx context.Context, s *cleanServer) ([]Leftover, error) {
	names, err := s.c.Do(ctx, "ACL", "USERS").StringSlice()
	switch {
	case redis.HasErrorPrefix(err, "unknown command"), redis.HasErrorPrefix(err, "unknown subcommand"):
		return nil, nil // Redis before 6: no ACL users, none of lockstep's
	case redis.IsPermissionError(err):
		return nil, fmt.Errorf("the user you connect to %s as may not list ACL users (ACL USERS: %v); connect as one who may (+acl|users +acl|deluser), as lockstep's runs do", s.opts.Addr, err)
	case err != nil:
		return nil, fmt.Errorf("ACL USERS on %s: %w", s.opts.Addr, err)
	}
	me, _ := s.c.Do(ctx, "ACL", "WHOAMI").Text()
	var out []Leftover
	for _, n := range names {
		if realserver.IsUserName(n) && n != me {
			out = append(out, Leftover{Kind: KindUser, Name: n, Where: s.opts.Addr, srv: s})
		}
	}
	return out, nil
}

// scanBatch is how many keys a SCAN call looks at, and how many commands
// go in one pipeline: a server may hold millions of keys.
const scanBatch = 1000

// noticeScanCalls bounds the scan of a run's notice: a run's start looks
// at a hundred thousand keys a server at most.
const noticeScanCalls = 100

// keys are the keys on s that runs wrote, and the lease on a replica
// (not for a notice: the run's own is there by then).
func (cl *Cleaner) keys(ctx context.Context, s *cleanServer) ([]Leftover, error) {
	var names []string
	var cursor uint64
	for calls := 0; !cl.notice || calls < noticeScanCalls; calls++ {
		batch, next, err := s.c.Scan(ctx, cursor, keyMatch, scanBatch).Result()
		if err != nil {
			return nil, fmt.Errorf("SCAN on %s: %w", s.opts.Addr, err)
		}
		for _, k := range batch {
			if IsRunKey(k) || !cl.notice && IsLeaseKey(k) {
				names = append(names, k)
			}
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	slices.Sort(names)
	names = slices.Compact(names) // SCAN may return a key twice
	out := make([]Leftover, len(names))
	for i, k := range names {
		out[i] = Leftover{Kind: KindKey, Name: k, Where: s.opts.Addr, srv: s}
		if IsLeaseKey(k) {
			out[i].Kind = KindLease
		}
	}
	if cl.notice {
		return out, nil
	}
	return describeKeys(ctx, s, out)
}

// describeKeys gives each key its TTL, and a lease its holder; a key gone
// in the meantime is left out.
func describeKeys(ctx context.Context, s *cleanServer, ls []Leftover) ([]Leftover, error) {
	var out []Leftover
	for batch := range slices.Chunk(ls, scanBatch/2) {
		pttls := make([]*redis.DurationCmd, len(batch))
		holders := make([]*redis.StringCmd, len(batch))
		_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, l := range batch {
				pttls[i] = p.PTTL(ctx, l.Name)
				if l.Kind == KindLease {
					holders[i] = p.Get(ctx, l.Name)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("PTTL on %s: %w", s.opts.Addr, err)
		}
		for i, l := range batch {
			switch d := pttls[i].Val(); {
			case d == -2:
				continue // expired since the scan
			case d < 0:
				l.Detail = "no TTL"
			default:
				l.Detail = "TTL " + d.Round(time.Millisecond).String()
			}
			if holders[i] != nil {
				l.Detail += ", held by " + holders[i].Val()
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// Remove removes ls, in order, and says how each went: nil, ErrGone, or
// what failed. It goes on past a failure.
func (cl *Cleaner) Remove(ctx context.Context, ls []Leftover, each func(Leftover, error)) {
	for i := 0; i < len(ls); {
		l := ls[i]
		if l.Kind != KindKey && l.Kind != KindLease {
			each(l, cl.remove(ctx, l))
			i++
			continue
		}
		// Keys go a pipeline at a time, per server.
		j := i + 1
		for j < len(ls) && j-i < scanBatch && ls[j].srv == l.srv && (ls[j].Kind == KindKey || ls[j].Kind == KindLease) {
			j++
		}
		delKeys(ctx, l.srv, ls[i:j], each)
		i = j
	}
}

// remove removes one leftover that is not a key.
func (cl *Cleaner) remove(ctx context.Context, l Leftover) error {
	switch l.Kind {
	case KindSentinel:
		return cl.sentinels.Remove(ctx, l.Name)
	case KindUser:
		n, err := l.srv.c.Do(ctx, "ACL", "DELUSER", l.Name).Int()
		if err == nil && n == 0 {
			return ErrGone
		}
		return err
	case KindReplica:
		return realserver.ReplicateFrom(ctx, cl.replica.c, cl.replica.opts.Addr, cl.primary)
	}
	return fmt.Errorf("no way to remove %s", l)
}

// delKeys deletes keys on one server, a DEL each (keys of several slots on
// a cluster's master), in one round trip.
func delKeys(ctx context.Context, s *cleanServer, ls []Leftover, each func(Leftover, error)) {
	cmds := make([]*redis.IntCmd, len(ls))
	_, _ = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, l := range ls {
			cmds[i] = p.Del(ctx, l.Name)
		}
		return nil
	})
	for i, l := range ls {
		n, err := cmds[i].Result()
		if err == nil && n == 0 {
			err = ErrGone
		}
		each(l, err)
	}
}
