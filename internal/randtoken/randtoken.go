// Package randtoken holds locks written as teams write them, that draw
// what lockstep would rather hand them: an owner token from crypto/rand
// (as hex, or as a version 4 UUID, as github.com/google/uuid's NewString
// spells one), and a wait before each attempt from math/rand. Each takes
// the key as uuid-lua does (SET NX PX; release by a compare-and-delete
// script). The tests that use them show that a lock's own tokens are
// named canonically in its traces, which are then the same from run to
// run, and that locktest tells a lock whose verdicts differ between two
// runs of one lesson.
package randtoken

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

// Hex draws its token as 16 bytes of crypto/rand in hex.
var Hex = info("rand-hex", "a crypto/rand token in hex", "crypto/rand 十六进制令牌", hexToken)

// UUID draws its token as a random (version 4) UUID.
var UUID = info("rand-uuid", "a random UUID token", "随机 UUID 令牌", uuidToken)

// Jitter takes Env.Token's token, and waits before each attempt for up to
// most, drawn from r: math/rand, which differs from run to run (a shared
// *rand.Rand a test seeds differs between two runs that draw from it one
// after the other).
func Jitter(r *mrand.Rand, most time.Duration) lockimpl.Info {
	var mu sync.Mutex
	draw := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(r.Int64N(int64(most)))
	}
	in := info("rand-jitter", "a math/rand wait before each attempt", "每次尝试前 math/rand 随机等待", nil)
	in.New = func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, token: env.Token, wait: draw} }
	return in
}

func info(name, en, zh string, token func() string) lockimpl.Info {
	return lockimpl.Info{
		Name:    name,
		Summary: text.New("SET NX PX of "+en+"; release by a compare-and-delete script", "SET NX PX 写入"+zh+"；用比对删除脚本释放"),
		Nodes:   1,
		New:     func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, token: token} },
	}
}

func hexToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func uuidToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// release deletes the key only while it holds the caller's token.
var release = redis.NewScript(`-- release: delete the key only if it holds our token
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`)

type lock struct {
	env   lockimpl.Env
	token func() string
	wait  func() time.Duration // before each attempt; nil: none
	held  string
}

// TryAcquire sends SET key token NX PX ttl, after the lock's own wait.
func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	if l.wait != nil {
		time.Sleep(l.wait())
	}
	tok := l.token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, tok, l.env.TTL).Result()
	if ok {
		l.held = tok
	}
	return ok, err
}

// Release runs the compare-and-delete script.
func (l *lock) Release(ctx context.Context) error {
	if l.held == "" {
		return lockimpl.ErrNotHeld
	}
	tok := l.held
	l.held = ""
	n, err := release.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, tok).Int()
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}
