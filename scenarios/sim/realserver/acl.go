package realserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// This file is the run's ACL user: what keeps a lock on a real server to
// its own keys. The lock clients connect as a user made for the run, allowed
// the commands locks use (sim.LockCommands) on the lock's keys only
// (sim.KeyPatterns), no Pub/Sub channels; Redis then refuses anything else
// with NOPERM, inside a Lua script too, which no check on the client can
// see. The user goes at the end of the run (Cleanup), on every path.

// UserPrefix starts the name of every ACL user lockstep makes: a run's
// ("lockstep-run-…") and the setup check's probe ("lockstep-probe-…"). A
// user left by a process that was killed outright (SIGKILL) is what
// lockstep clean looks for (IsUserName).
const UserPrefix = "lockstep-"

// userKinds are the kinds newUser is called with.
var userKinds = []string{"run", "probe"}

// IsUserName says whether name is one newUser draws: UserPrefix, a kind,
// "-" and 16 lowercase hex digits. Only those: a user of one's own named
// "lockstep-admin" is not lockstep's to remove.
func IsUserName(name string) bool {
	rest, ok := strings.CutPrefix(name, UserPrefix)
	if !ok {
		return false
	}
	kind, digits, ok := strings.Cut(rest, "-")
	return ok && slices.Contains(userKinds, kind) && isLowerHex(digits, 16)
}

// isLowerHex says whether s is n digits as hex.EncodeToString writes them.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// aclUser is an ACL user lockstep made: its name and password.
type aclUser struct{ name, pass string }

// newUser draws a name (kind: "run", "probe") and a password.
func newUser(kind string) (aclUser, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return aclUser{}, err
	}
	return aclUser{name: UserPrefix + kind + "-" + hex.EncodeToString(b[:8]), pass: hex.EncodeToString(b[8:])}, nil
}

// ACLRules are the rules of a run's ACL user for a lock whose key is key
// (ACL SETUSER name rules…): commands, the keys' patterns, no channels, the
// password as its SHA-256 (so that it shows nowhere in clear). commands are
// the ones to allow, sim.LockCommands or those of them the server knows;
// selectDB allows SELECT, which the connection's handshake sends for a
// database other than 0.
func ACLRules(key, pass string, commands []string, selectDB bool) []string {
	sum := sha256.Sum256([]byte(pass))
	rules := []string{"reset", "on", "#" + hex.EncodeToString(sum[:]), "resetchannels", "-@all"}
	for _, c := range commands {
		rules = append(rules, "+"+c)
	}
	if selectDB {
		rules = append(rules, "+select")
	}
	for _, p := range command.KeyPatterns(key) {
		rules = append(rules, "~"+p)
	}
	return rules
}

// knownCommands are those of sim.LockCommands the server knows (Redis 6.0
// has no GETDEL, 7.0 brought EXPIRETIME): an ACL rule naming a command the
// server lacks is refused whole.
func knownCommands(ctx context.Context, c *redis.Client) ([]string, error) {
	all := command.LockCommands()
	base := make([]string, len(all))
	for i, name := range all {
		base[i], _, _ = strings.Cut(name, "|")
	}
	args := []any{"COMMAND", "INFO"}
	for _, name := range base {
		args = append(args, name)
	}
	// One entry per name asked, nil for a command the server lacks.
	info, err := c.Do(ctx, args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("COMMAND INFO: %w", err)
	}
	if len(info) != len(all) {
		return nil, fmt.Errorf("COMMAND INFO: %d entries for %d commands", len(info), len(all))
	}
	var known []string
	for i, name := range all {
		if info[i] != nil {
			known = append(known, name)
		}
	}
	return known, nil
}

// makeUser creates u on the server c reaches with rules for key.
func makeUser(ctx context.Context, c *redis.Client, u aclUser, key string, selectDB bool) error {
	commands, err := knownCommands(ctx, c)
	if err != nil {
		return err
	}
	args := []any{"ACL", "SETUSER", u.name}
	for _, r := range ACLRules(key, u.pass, commands, selectDB) {
		args = append(args, r)
	}
	return c.Do(ctx, args...).Err()
}

// dropUser removes u from the server c reaches; Redis closes its
// connections.
func dropUser(ctx context.Context, c *redis.Client, u aclUser) error {
	return c.Do(ctx, "ACL", "DELUSER", u.name).Err()
}

// Guard makes the run's ACL user, which the lock clients connect as from
// then on (ClientOptions). With Target.NoACL it does nothing: the gate
// checks what it can.
func (b *server) Guard(key string) error {
	b.readBusyThreshold()
	if b.run.Target.NoACL {
		return nil
	}
	u, err := newUser("run")
	if err != nil {
		return err
	}
	ctx, cancel := b.ioContext()
	defer cancel()
	if err := makeUser(ctx, b.obs, u, key, b.opts.DB != 0); err != nil {
		return fmt.Errorf("make the run's ACL user on %s (ACL SETUSER): %w", b.opts.Addr, err)
	}
	b.mu.Lock()
	b.user = &u
	b.mu.Unlock()
	return nil
}

// dropRunUser removes the run's ACL user, if it made one, through c.
func (b *server) dropRunUser(ctx context.Context, c *redis.Client) error {
	b.mu.Lock()
	u := b.user
	b.mu.Unlock()
	if u == nil {
		return nil
	}
	if err := dropUser(ctx, c, *u); err != nil {
		return backend.LeftBehind(fmt.Errorf("remove the run's ACL user on %s: %w; left there: the user %s (ACL DELUSER %s)", b.opts.Addr, err, u.name, u.name))
	}
	b.mu.Lock()
	b.user = nil
	b.mu.Unlock()
	return nil
}

// ProbeACL makes sure lockstep can guard a run on the server c reaches: it
// makes a user with a run's rules and removes it again. The error says why
// not (no ACLs before Redis 6; a user who may not run ACL SETUSER).
func ProbeACL(ctx context.Context, c *redis.Client) error {
	// Redis before 6 has no ACL command at all.
	if err := c.Do(ctx, "ACL", "WHOAMI").Err(); err != nil {
		return err
	}
	u, err := newUser("probe")
	if err != nil {
		return err
	}
	if err := makeUser(ctx, c, u, "lockstep:probe", false); err != nil {
		return err
	}
	return dropUser(ctx, c, u)
}
