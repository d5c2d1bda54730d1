package realredis_test

import (
	"testing"

	"github.com/lockstep-sim/lockstep/bench"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// lockstep clean knows lockstep's names as lockstep makes them, and
// nothing that merely looks like them: every key a run's ACL user may
// write (sim.KeyPatterns of a key under the prefix, check's cells and
// their slower runs included), bench's, the lease, the master name, the
// users; not a key with the prefix elsewhere in it, an uppercase or short
// "prefix", a key named like the prefix alone, other users.
func TestCleanKnowsLockstepsNamesOnly(t *testing.T) {
	prefix, err := realredis.NewPrefix()
	if err != nil {
		t.Fatal(err)
	}
	benchPrefix, err := bench.NewPrefix()
	if err != nil {
		t.Fatal(err)
	}
	cell := (&backend.Target{Prefix: prefix}).Sub("gc-pause:fenced:").Sub("slower1:").Prefix
	lock := cell + "lock:product:1001"
	ours := []string{lock, lock + ":fence", "{" + lock + "}:fence", "{" + lock + "}", prefix + "x", benchPrefix + "baseline", "{" + benchPrefix + "fenced}:fence"}
	for _, k := range ours {
		if !realredis.IsRunKey(k) {
			t.Errorf("IsRunKey(%q) = false, want true", k)
		}
	}
	theirs := []string{"lockstep:notes", "lockstep:DEADBEEF:x", "lockstep:0a1b2c3:x", "lockstep:0a1b2c3d", "app:" + lock, "x{" + lock + "}",
		"lockstep-bench:0a1b2c3:x", "lockstep-run-0123456789abcdef", "{lockstep}:x", "lockstep:replica-lease:mine"}
	for _, k := range theirs {
		if realredis.IsRunKey(k) || realredis.IsLeaseKey(k) {
			t.Errorf("%q is taken for lockstep's", k)
		}
	}
	if lease := realredis.LeaseKey("da9e6f0d30cff6b9483999833b4ef35eb4ca53a2"); !realredis.IsLeaseKey(lease) || realredis.IsRunKey(lease) {
		t.Errorf("the lease %q is not known as one", lease)
	}
	if name := backend.SentinelName(cell); !realredis.IsSentinelName(name) {
		t.Errorf("IsSentinelName(%q) = false", name)
	}
	for _, name := range []string{"mymaster", "lockstep-test-0a1b2c3d", "lockstep-lockstep-0A1B2C3D", "lockstep-lockstep-0a1b2c3dx"} {
		if realredis.IsSentinelName(name) {
			t.Errorf("IsSentinelName(%q) = true", name)
		}
	}
	for name, want := range map[string]bool{
		"lockstep-run-0123456789abcdef": true, "lockstep-probe-0123456789abcdef": true,
		"lockstep-admin": false, "lockstep-run-0123456789ABCDEF": false, "lockstep-run-0123": false,
		"lockstep-bench-0123456789abcdef": false, "alice": false, "default": false,
	} {
		if got := realserver.IsUserName(name); got != want {
			t.Errorf("IsUserName(%q) = %v, want %v", name, got, want)
		}
	}
}

// The command a run's notice prints is the servers as given, but for a
// password, and quoted where a shell would read it otherwise.
func TestCleanCommand(t *testing.T) {
	for _, tc := range []struct {
		cfg  realredis.CleanConfig
		want string
	}{
		{realredis.CleanConfig{Addrs: []string{"127.0.0.1:6390", "127.0.0.1:6391"}, Replica: "127.0.0.1:6395", Sentinels: []string{"127.0.0.1:26379", "127.0.0.1:26380"}},
			"lockstep clean --redis 127.0.0.1:6390,127.0.0.1:6391 --replica 127.0.0.1:6395 --sentinel 127.0.0.1:26379,127.0.0.1:26380"},
		{realredis.CleanConfig{Addrs: []string{"redis://alice:s3cret@db:6379/2"}, Replica: "rediss://:s3cret@db2:6379"},
			"lockstep clean --redis redis://alice:PASSWORD@db:6379/2 --replica rediss://:PASSWORD@db2:6379"},
		{realredis.CleanConfig{Addrs: []string{"[::1]:6379"}}, "lockstep clean --redis '[::1]:6379'"},
		{realredis.CleanConfig{Addrs: []string{"unix:///run/redis.sock?db=1"}}, "lockstep clean --redis 'unix:///run/redis.sock?db=1'"},
		{realredis.CleanConfig{Addrs: []string{"127.0.0.1:7000"}, Cluster: true}, "lockstep clean --cluster 127.0.0.1:7000"},
	} {
		if got := realredis.CleanCommand(tc.cfg); got != tc.want {
			t.Errorf("CleanCommand(%+v)\n = %s\nwant %s", tc.cfg, got, tc.want)
		}
	}
}
