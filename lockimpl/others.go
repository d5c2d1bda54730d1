package lockimpl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/lockstep-sim/lockstep/lockimpl/external"
	"github.com/lockstep-sim/lockstep/text"
)

// others are the locks in other languages: the libraries' own code, run
// unmodified by an agent in the library's runtime (package external), which
// the machine must have (Needs). They are not in All, the catalogue every
// lesson's matrix runs by default; Lookup finds them, and Others lists
// them.
var others = []Info{
	{
		Name: "py-redis-lock",
		Summary: text.Text{
			EN: "redis-py's Lock (Python) as it ships: SET NX with no expiry (timeout=None, its default); a Lua compare-and-delete release",
			ZH: "redis-py 自带的 Lock（Python），默认用法：SET NX 不设过期（timeout=None 是它的默认值）；用 Lua 比较后删除来释放",
		},
		Fixes: text.Text{
			EN: "ownership: its release deletes only its own token",
			ZH: "归属：释放时只删自己的令牌，不会误删",
		},
		Misses: text.Text{
			EN: "the lease: with its default the key never expires, and a crashed holder blocks everyone forever",
			ZH: "租期：默认用法下键永不过期，持有者崩溃后所有人死等",
		},
		Nodes: 1,
		Needs: external.NeedsPython,
		New:   python("py-redis-lock", "python/adapters/redis_py_lock.py", nil),
	},
	{
		Name: "py-redis-lock-timeout",
		Summary: text.Text{
			EN: "redis-py's Lock (Python) with timeout= the lease: SET NX PX, a Lua compare-and-delete release",
			ZH: "redis-py 的 Lock（Python），timeout= 设为租期：SET NX PX，用 Lua 比较后删除来释放",
		},
		Fixes: text.Text{
			EN: "the lease: a crashed holder's lock expires",
			ZH: "租期：持有者崩溃后锁会过期",
		},
		Misses: text.Text{
			EN: "renewal: no watchdog, so work that outlasts the lease loses the lock (as uuid-lua)",
			ZH: "续期：没有看门狗，业务超过租期就会丢锁（与 uuid-lua 相同）",
		},
		Nodes: 1,
		Needs: external.NeedsPython,
		New:   python("py-redis-lock-timeout", "python/adapters/redis_py_lock.py", map[string]any{"timeout": true}),
	},
	{
		Name: "py-course-reentrant",
		Summary: text.Text{
			EN: "the course's own ReentrantLock (Python, seed 002) on redis-py: GET, then SET owner EX ttl without NX, and a count; at zero a Lua compare-and-delete",
			ZH: "课程自己的 ReentrantLock（Python，第 002 篇）基于 redis-py：先 GET，再 SET owner EX ttl（不带 NX），加一个计数器；计数归零时用 Lua 比较后删除",
		},
		Fixes: text.Text{
			EN: "reentrancy: the holder may take its own lock again; the release deletes only its own owner",
			ZH: "可重入：持有者可以再次获取自己的锁；释放时只删自己的 owner",
		},
		Misses: text.Text{
			EN: "mutual exclusion: GET then SET is two steps, so two clients that both read an empty key both write it and both hold the lock",
			ZH: "互斥：先 GET 再 SET 是两步，两个客户端都读到空键，就都写入、都认为自己拿到了锁",
		},
		Nodes: 1,
		Needs: external.NeedsPython,
		New:   python("py-course-reentrant", "python/adapters/course_reentrant.py", nil),
	},
	{
		Name: "node-redlock",
		Summary: text.Text{
			EN: "npm's redlock 4.2.0 (JavaScript, on ioredis): a Lua EXISTS-then-SET PX on each node, a majority, then the validity check; a Lua release",
			ZH: "npm 的 redlock 4.2.0（JavaScript，基于 ioredis）：在每个节点上用 Lua 先 EXISTS 再 SET PX，取多数派，再做有效期检查；用 Lua 释放",
		},
		Fixes: text.Text{
			EN: "losing one server does not lose the lock; an acquire that took longer than the lease is given back",
			ZH: "单个实例宕机不会丢锁；加锁耗时超过租期时会放弃这把锁",
		},
		Misses: text.Text{
			EN: "process pauses after the acquire, clock jumps, restarts without persistence; no per-node timeout (ioredis waits and retries)",
			ZH: "拿锁之后的进程暂停、时钟跳变、无持久化重启；没有单节点超时（ioredis 会等待并重试）",
		},
		Nodes: RedlockNodes,
		Needs: external.NeedsNode,
		New:   node("node-redlock", "node/adapters/redlock.js", nil),
	},
	{
		Name: "node-sesamecare-redlock",
		Summary: text.Text{
			EN: "@sesamecare-oss/redlock 1.4.0 (JavaScript, on ioredis): redlock's scripts, but a majority of votes is a hold, with no validity check",
			ZH: "@sesamecare-oss/redlock 1.4.0（JavaScript，基于 ioredis）：脚本与 redlock 相同，但只要多数节点同意就算拿到锁，不做有效期检查",
		},
		Fixes: text.Text{
			EN: "losing one server does not lose the lock",
			ZH: "单个实例宕机不会丢锁",
		},
		Misses: text.Text{
			EN: "a pause in the middle of the acquire: the first keys expire, and a second client gets a majority too (as redlock-no-validity)",
			ZH: "加锁中途停顿：先拿到的 key 已经过期，另一个客户端也拿到了多数派（与 redlock-no-validity 相同）",
		},
		Nodes: RedlockNodes,
		Needs: external.NeedsNode,
		New:   node("node-sesamecare-redlock", "node/adapters/sesamecare_redlock.js", nil),
	},
	{
		Name: "node-redis-lock",
		Summary: text.Text{
			EN: "npm's redis-lock 1.0.0 (JavaScript, on node-redis 4): SET lock.<name> <its deadline> PX NX, polled every 50 ms; the release is a plain DEL, skipped once the client's own clock passes the deadline",
			ZH: "npm 的 redis-lock 1.0.0（JavaScript，基于 node-redis 4）：SET lock.<名字> <截止时间> PX NX，每 50 ms 轮询一次；释放是直接 DEL，只凭客户端自己的时钟判断是否已过截止时间",
		},
		Fixes: text.Text{
			EN: "the lease, and a release after the client's own deadline deletes nothing",
			ZH: "有租期；客户端自己的截止时间过后释放，不会删任何东西",
		},
		Misses: text.Text{
			EN: "ownership: the value is a timestamp, not a token, so when the server loses the key before the client's deadline (a failover, a clock jump), its DEL removes another holder's lock",
			ZH: "归属：值是时间戳而不是令牌，服务端在客户端截止时间之前丢了键（主从切换、时钟跳变）时，它的 DEL 会误删别人的锁",
		},
		Nodes: 1,
		Needs: external.NeedsNode,
		KeyOf: func(key string) string { return "lock." + key },
		New:   node("node-redis-lock", "node/adapters/redis_lock.js", nil),
	},
	{
		Name: "node-simple-redis-mutex",
		Summary: text.Text{
			EN: "npm's simple-redis-mutex 3.0.0 (JavaScript, on node-redis 5): SET NX PX with a Math.random() value, then INCR of a fencing counter all its locks share; a Lua compare-and-delete release that PUBLISHes it",
			ZH: "npm 的 simple-redis-mutex 3.0.0（JavaScript，基于 node-redis 5）：SET NX PX，值是 Math.random()，再对所有锁共用的栅栏计数器 INCR；释放用 Lua 比较后删除，并 PUBLISH 一条释放消息",
		},
		Fixes: text.Text{
			EN: "the lease, and ownership: its release deletes only its own value",
			ZH: "有租期，也有归属：释放时只删自己的值",
		},
		Misses: text.Text{
			EN: "renewal: no watchdog, so work that outlasts the lease loses the lock; its fencing token is drawn after the SET, by a separate INCR, so a holder that pauses between the two gets a larger token than the holder after it",
			ZH: "续期：没有看门狗，业务超过租期就会丢锁；栅栏令牌是在 SET 之后另用一条 INCR 取的，持有者在两者之间停顿，拿到的令牌反而比后来的持有者更大",
		},
		Nodes:      1,
		Needs:      external.NeedsNode,
		KeyOf:      func(key string) string { return "@simple-redis-mutex:lock-" + key },
		SharedKeys: []string{"@simple-redis-mutex:fencing-tokens", "@simple-redis-mutex:locks-releases"},
		New:        fenced(node("node-simple-redis-mutex", "node/adapters/simple_redis_mutex.js", nil)),
	},
	{
		Name: "node-simple-redis-mutex-refresh",
		Summary: text.Text{
			EN: "npm's simple-redis-mutex 3.0.0 (JavaScript) with its refreshTimeout() called every TTL/3 while held, as an application with long work calls it: a GET, then a separate PEXPIRE",
			ZH: "npm 的 simple-redis-mutex 3.0.0（JavaScript），持有期间每隔 TTL/3 调用一次它的 refreshTimeout()，就像业务较长的应用那样：先 GET，再另发一条 PEXPIRE",
		},
		Fixes: text.Text{
			EN: "renewal: work that outlasts the lease keeps the lock while the refresh finds its value",
			ZH: "续期：业务超过租期时，只要刷新时还读得到自己的值，锁就不会丢",
		},
		Misses: text.Text{
			EN: "the owner check and the extension are two commands: a refresh whose GET saw its own value extends whatever holds the key when its PEXPIRE arrives, another holder's lock too",
			ZH: "检查归属和延长过期时间是两条命令：GET 读到自己的值之后，PEXPIRE 到达时延长的是当时键上的锁，也可能是别人的锁",
		},
		Nodes:      1,
		Needs:      external.NeedsNode,
		KeyOf:      func(key string) string { return "@simple-redis-mutex:lock-" + key },
		SharedKeys: []string{"@simple-redis-mutex:fencing-tokens", "@simple-redis-mutex:locks-releases"},
		New: fenced(node("node-simple-redis-mutex-refresh", "node/adapters/simple_redis_mutex.js",
			map[string]any{"refresh": true})),
	},
}

// Others returns the locks in other languages, in order.
func Others() []Info { return append([]Info(nil), others...) }

// Runnable returns the catalogue, then the locks in other languages this
// machine can run (Needs): what a picker offers.
func Runnable() []Info {
	out := All()
	for _, in := range others {
		if in.Needs() == nil {
			out = append(out, in)
		}
	}
	return out
}

// nodesLine is how a lock of one's own says how many nodes it needs: a
// line "NODES = 3" of its file ("const NODES = 3;" in JavaScript). One
// without it needs one.
var nodesLine = regexp.MustCompile(`(?m)^(?:const\s+|exports\.)?NODES\s*=\s*([0-9]+)\s*;?\s*(#.*|//.*)?$`)

// ownRuntimes are the languages of a lock of one's own, by its file's
// extension.
var ownRuntimes = map[string]struct {
	runtime string
	needs   func() error
	lang    text.Text
}{
	".py": {"python", external.NeedsPython, text.Text{EN: "Python", ZH: "Python"}},
	".js": {"node", external.NeedsNode, text.Text{EN: "JavaScript", ZH: "JavaScript"}},
}

// IsOwnFile says whether the implementation name is a lock of one's own in
// another language: a file whose extension names its language (.py, .js).
func IsOwnFile(name string) bool {
	_, ok := ownRuntimes[filepath.Ext(name)]
	return ok
}

// own is a lock of the user's own in another language, by its adapter's
// file: a .py or .js file that makes the lock as clients/python/adapters'
// and clients/node/adapters' do (docs/external.md). Its name is the path as
// given.
func own(path string) (Info, error) {
	rt, ok := ownRuntimes[filepath.Ext(path)]
	if !ok {
		return Info{}, fmt.Errorf("%s: a lock of your own in another language is a .py or .js file", path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return Info{}, fmt.Errorf("a lock of your own: %w", err)
	}
	nodes := 1
	if m := nodesLine.FindSubmatch(src); m != nil {
		if nodes, err = strconv.Atoi(string(m[1])); err != nil || nodes < 1 || nodes > 9 {
			return Info{}, fmt.Errorf("%s: NODES = %s: a lock needs 1 to 9 nodes", path, m[1])
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Info{}, err
	}
	return Info{
		Name: path,
		Summary: text.Text{EN: "your own lock in " + rt.lang.EN + " (" + path + ")",
			ZH: "你自己用 " + rt.lang.ZH + " 写的锁（" + path + "）"},
		Nodes: nodes,
		Needs: rt.needs,
		New: func(env Env) Lock {
			return otherLock{external.New(external.Spec{Name: path, Runtime: rt.runtime, Adapter: abs, Own: true},
				externalEnv(env))}
		},
	}, nil
}

// python is the Maker of the Python lock name: adapter (a file of package
// clients') makes it, with options.
func python(name, adapter string, options map[string]any) Maker {
	return func(env Env) Lock {
		return otherLock{external.New(external.Spec{Name: name, Runtime: "python", Adapter: adapter, Options: options},
			externalEnv(env))}
	}
}

// node is the Maker of the JavaScript lock name: adapter (a file of package
// clients') makes it, with options.
func node(name, adapter string, options map[string]any) Maker {
	return func(env Env) Lock {
		return otherLock{external.New(external.Spec{Name: name, Runtime: "node", Adapter: adapter, Options: options},
			externalEnv(env))}
	}
}

// externalEnv is what env gives a lock in another language: the watchdog of
// a lock whose adapter renews runs as a goroutine of the client's, capped as
// lockimpl's watchdogs are.
func externalEnv(env Env) external.Env {
	return external.Env{Nodes: env.Nodes, Key: env.Key, TTL: env.TTL, Clock: env.Clock, Name: env.Name,
		Go: env.goroutine, MaxRenewals: DefaultMaxRenewals}
}

// fenced is make's locks as Fencers: their adapter's acquire returns the
// hold's fencing token beside it ({held, fence}).
func fenced(make Maker) Maker {
	return func(env Env) Lock { return fencedLock{make(env).(otherLock)} }
}

// fencedLock is a lock in another language that hands out fencing tokens.
type fencedLock struct{ otherLock }

// Fence is the token of the current hold.
func (l fencedLock) Fence() int64 { return l.FenceToken() }

// otherLock is a lock in another language as a Lock: its "not held" is
// ErrNotHeld. It is a Watcher: Lost is nil for a lock whose adapter does
// not renew.
type otherLock struct{ *external.Lock }

func (l otherLock) Release(ctx context.Context) error {
	err := l.Lock.Release(ctx)
	if errors.Is(err, external.ErrNotHeld) {
		return ErrNotHeld
	}
	return err
}
