package realredis

import (
	"strings"
	"testing"
)

// FuzzParse: any --redis address is either refused with an error that
// quotes it, or gives options with a network and an address go-redis can
// dial; nothing panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"127.0.0.1:6379", "[::1]:6379", "localhost:7000",
		"redis://alice:s3cret@10.0.0.5:6380/2", "rediss://:pw@example.com:6390",
		"unix:///tmp/redis.sock?db=1", "unix://:pw@/tmp/redis.sock",
		"6379", ":6379", "host:port", "redis://host:6379/notadb", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		opts, err := Parse(addr)
		if err != nil {
			if !strings.Contains(err.Error(), "server address") {
				t.Errorf("Parse(%q): error %q does not say which address", addr, err)
			}
			return
		}
		if opts.Addr == "" {
			t.Errorf("Parse(%q): no address", addr)
		}
		if opts.Network != "tcp" && opts.Network != "unix" {
			t.Errorf("Parse(%q): network %q", addr, opts.Network)
		}
		if opts.DB < 0 {
			t.Errorf("Parse(%q): database %d", addr, opts.DB)
		}
	})
}
