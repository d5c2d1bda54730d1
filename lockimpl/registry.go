package lockimpl

import (
	"errors"
	"slices"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/text"
)

// Info describes one implementation in the catalogue. The texts come in
// English and Chinese (简体中文).
type Info struct {
	Name    string
	Summary text.Text // one line: what it is
	Fixes   text.Text // what it fixes over the one before
	Misses  text.Text // what it still gets wrong
	// Nodes is how many independent Redis servers it needs.
	Nodes int
	New   Maker
	// Needs, for a lock in another language (Others), says whether this
	// machine has its runtime and library, and if not, what to install.
	Needs func() error
	// KeyOf, for a library that makes its key from a name of the caller's
	// (npm's redis-lock keeps "lock.NAME"), is the key the lock keeps for
	// the lesson's key K: the run gives it as Env.Key, guards it and
	// judges it, and the lock passes the name that makes it. Nil means K.
	KeyOf func(key string) string
	// SharedKeys, for a library that keeps keys for all its locks (npm's
	// simple-redis-mutex: a fencing counter, a channel named as a script's
	// key), are those keys: the run lets the lock use them beside its own.
	// They are not the run's alone, so such a lock runs on embedded
	// servers only.
	SharedKeys []string
	// ClockFree says that the lock keeps no time of its own: it never
	// reads the clock (time.Now, time.Since, Env.Clock.Now), sets no timer
	// or deadline of its own (time.Sleep, time.After, a ticker,
	// context.WithTimeout), and waits only through Env.Clock.Sleep, whose
	// wake-up the simulator sees — nor does a library it calls. What such
	// a lock does next follows from what the simulator observes without
	// when each of its goroutines last woke, and the explorer leaves that
	// out of a state: it tells apart only what a clock reading could
	// remember, and uuid-lua's search with three clients covers 368 states
	// instead of 1,394. False, the zero value, is always safe. A lock marked
	// ClockFree that calls Env.Clock.Now fails its run; one that reads
	// time.Now cannot be caught, and the explorer may then merge states
	// that go on differently.
	ClockFree bool
}

// catalogue is ordered from the most naive to the most careful.
var catalogue = []Info{
	{
		Name: "no-lock",
		Summary: text.Text{
			EN: "no lock at all: read, compute, write",
			ZH: "不加锁：读、算、写",
		},
		Fixes: text.Text{
			EN: "nothing: the baseline",
			ZH: "什么都不解决：这是基线",
		},
		Misses: text.Text{
			EN: "mutual exclusion: concurrent buyers oversell",
			ZH: "互斥：并发购买导致超卖",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewNoLock,
	},
	{
		Name: "local-mutex",
		Summary: text.Text{
			EN: "a sync.Mutex in each process",
			ZH: "每个进程里的一把 sync.Mutex（本地锁）",
		},
		Fixes: text.Text{
			EN: "exclusion between the goroutines of one process",
			ZH: "同一进程内的协程之间能互斥",
		},
		Misses: text.Text{
			EN: "two processes have two mutexes: useless across servers",
			ZH: "两个进程就是两把锁：跨服务器毫无作用",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewLocalMutex,
	},
	{
		Name: "setnx",
		Summary: text.Text{
			EN: "SETNX to take, DEL to release; no expiry",
			ZH: "SETNX 加锁，DEL 释放；不设过期时间",
		},
		Fixes: text.Text{
			EN: "mutual exclusion between well-behaved clients",
			ZH: "守规矩的客户端之间能互斥",
		},
		Misses: text.Text{
			EN: "a crashed holder blocks everyone forever",
			ZH: "持有者崩溃后锁永不释放，所有人死等",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewSetNX,
	},
	{
		Name: "setnx-expire",
		Summary: text.Text{
			EN: "SETNX, then EXPIRE in a second command; DEL to release",
			ZH: "先 SETNX，再单独 EXPIRE；DEL 释放",
		},
		Fixes: text.Text{
			EN: "a crash after both commands no longer blocks forever",
			ZH: "两条命令都执行后再崩溃，锁会过期",
		},
		Misses: text.Text{
			EN: "a crash between SETNX and EXPIRE leaves a lock with no TTL",
			ZH: "SETNX 与 EXPIRE 之间崩溃，锁没有过期时间",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewSetNXExpire,
	},
	{
		Name: "set-nx-ex",
		Summary: text.Text{
			EN: "SET key 1 NX EX ttl (atomic); DEL to release",
			ZH: "SET key 1 NX EX ttl（原子）；DEL 释放",
		},
		Fixes: text.Text{
			EN: "NX and EX in one command: a crashed holder's lock always expires",
			ZH: "NX 与 EX 在一条命令里：持有者崩溃，锁总会过期",
		},
		Misses: text.Text{
			EN: "constant value: DEL can delete another client's lock",
			ZH: "值是常量：DEL 可能误删别人的锁",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewSetNXEX,
	},
	{
		Name: "uuid-get-del",
		Summary: text.Text{
			EN: "unique token; release by GET, compare, then DEL",
			ZH: "唯一标识作值；释放时先 GET 比对再 DEL",
		},
		Fixes: text.Text{
			EN: "a holder leaves a lock that is no longer its own alone",
			ZH: "不再删除已经不属于自己的锁",
		},
		Misses: text.Text{
			EN: "the lock can change hands between GET and DEL",
			ZH: "GET 与 DEL 之间锁可能易主，仍会误删",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewUUIDGetDel,
	},
	{
		Name: "uuid-lua",
		Summary: text.Text{
			EN: "unique token; release by an atomic compare-and-delete Lua script",
			ZH: "唯一标识作值；用 Lua 脚本原子地比对并删除",
		},
		Fixes: text.Text{
			EN: "no mis-deletion, no GET-then-DEL race",
			ZH: "不误删，没有 GET+DEL 竞态",
		},
		Misses: text.Text{
			EN: "no renewal; one server (failover loses the lock); pauses",
			ZH: "不续期；单实例（主从切换丢锁）；进程暂停",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewUUIDLua,
	},
	{
		Name: "watch-multi",
		Summary: text.Text{
			EN: "unique token; WATCH, read, then MULTI/EXEC to take and to release (optimistic)",
			ZH: "唯一标识作值；WATCH、读，再用 MULTI/EXEC 加锁和释放（乐观锁）",
		},
		Fixes: text.Text{
			EN: "what uuid-lua fixes, without Lua: a changed key voids the EXEC",
			ZH: "与 uuid-lua 相同，但不用 Lua：键被改过，EXEC 就作废",
		},
		Misses: text.Text{
			EN: "no renewal; one server (failover loses the lock); pauses",
			ZH: "不续期；单实例（主从切换丢锁）；进程暂停",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewWatchMulti,
	},
	{
		Name: "uuid-lua-watchdog",
		Summary: text.Text{
			EN: "uuid-lua plus a watchdog renewing every TTL/3, with a cap",
			ZH: "uuid-lua 加看门狗：每 TTL/3 续期一次，有次数上限",
		},
		Fixes: text.Text{
			EN: "work longer than the TTL keeps the lock; a hung holder's lock still runs out after the cap",
			ZH: "业务耗时超过 TTL 也不丢锁；持有者卡死时，续期达到上限后锁仍会过期",
		},
		Misses: text.Text{
			EN: "a process pause freezes the watchdog too; failover",
			ZH: "进程暂停时看门狗也被冻结；主从切换",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewUUIDLuaWatchdog,
	},
	// The unchecked watchdog is the capped one with the renewal the course
	// warns about; it follows it for the same reason as the uncapped one.
	{
		Name: "watchdog-unchecked",
		Summary: text.Text{
			EN: "uuid-lua-watchdog whose renewal is a plain PEXPIRE: it does not check the token",
			ZH: "uuid-lua-watchdog，但续期是裸 PEXPIRE：不校验标识",
		},
		Fixes: text.Text{
			EN: "nothing over uuid-lua-watchdog: it is the trap",
			ZH: "比 uuid-lua-watchdog 没有任何改进：这是个陷阱",
		},
		Misses: text.Text{
			EN: "after its lease ran out, its watchdog extends another client's lock",
			ZH: "租约过期后，它的看门狗会给别人的锁续期",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewWatchdogUnchecked,
	},
	// The uncapped watchdog is the capped one with its trap put back; it
	// follows it so that "the next implementation that fixes this" is the
	// one to use.
	{
		Name: "uuid-lua-watchdog-uncapped",
		Summary: text.Text{
			EN: "uuid-lua plus a watchdog renewing every TTL/3, with no cap",
			ZH: "uuid-lua 加看门狗：每 TTL/3 续期一次，没有次数上限",
		},
		Fixes: text.Text{
			EN: "work that needs more renewals than the cap still keeps the lock",
			ZH: "业务需要的续期次数超过上限时也不丢锁",
		},
		Misses: text.Text{
			EN: "a hung business thread in a live process renews forever",
			ZH: "业务线程卡死而进程未死时，看门狗无限续期，锁永不释放",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewUUIDLuaWatchdogUncapped,
	},
	{
		Name: "uuid-lua-wait",
		Summary: text.Text{
			EN: "uuid-lua plus WAIT for the replica's acknowledgement; no ack, no lock",
			ZH: "uuid-lua 加 WAIT：等从库确认收到锁，没有确认就放弃这把锁",
		},
		Fixes: text.Text{
			EN: "a failover to a replica that is merely behind no longer loses a lock",
			ZH: "从库只是复制慢时，主从切换不再丢锁",
		},
		Misses: text.Text{
			EN: "WAIT is not consensus; no replica connected means no lock; no renewal; pauses",
			ZH: "WAIT 不是共识；没有从库在线就拿不到锁；不续期；进程暂停",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewUUIDLuaWait,
	},
	{
		Name: "redlock",
		Summary: text.Text{
			EN: "majority of 5 independent servers, each asked with a short timeout; validity = TTL − elapsed − drift",
			ZH: "5 个独立实例取多数派，每个节点都带很短的超时；有效期 = TTL − 耗时 − 时钟漂移",
		},
		Fixes: text.Text{
			EN: "losing one server does not lose the lock; a slow node costs an attempt, not the lease",
			ZH: "单个实例宕机不会丢锁；慢节点只让一次尝试失败，不会吃掉租约",
		},
		Misses: text.Text{
			EN: "process pauses, clock jumps, restarts without persistence",
			ZH: "进程暂停、时钟跳变、无持久化重启",
		},
		Nodes: RedlockNodes,
		New:   NewRedlock,
	},
	{
		Name: "redlock-no-validity",
		Summary: text.Text{
			EN: "redlock without the validity check or the per-node timeout: a majority of OKs is a hold, however long it took",
			ZH: "去掉有效期检查和单节点超时的 redlock：只要多数节点返回 OK 就算拿到锁，不管花了多久",
		},
		Fixes: text.Text{
			EN: "nothing over redlock: it shows what counting the time is for",
			ZH: "比 redlock 没有任何改进：用来说明计时（耗时检查、单节点超时）的作用",
		},
		Misses: text.Text{
			EN: "a pause in the middle of the acquire, or a slow node: the first keys expire, and a second client gets a majority too",
			ZH: "加锁中途停顿或节点很慢：先拿到的 key 已经过期，另一个客户端也拿到了多数派",
		},
		Nodes: RedlockNodes,
		New:   NewRedlockNoValidity,
	},
	{
		Name: "redlock-fenced",
		Summary: text.Text{
			EN: "redlock plus a fencing token: each node counts the holds it grants, and the token is the largest count of the majority",
			ZH: "redlock 加栅栏令牌：每个节点给自己批准的加锁计数，令牌取多数派里最大的计数",
		},
		Fixes: text.Text{
			EN: "while the counters keep pace, a paused holder's late write is refused by the resource",
			ZH: "计数器保持同步时，暂停后醒来的旧持有者，其迟到的写入会被资源端拒绝",
		},
		Misses: text.Text{
			EN: "the counts are not one sequence: a node restarted without persistence, or one an acquire did not reach, can hand a later holder the same token",
			ZH: "计数不是同一个序列：无持久化重启的节点，或者某次加锁没有覆盖到的节点，会让后来的持有者拿到同样的令牌",
		},
		Nodes: RedlockNodes,
		New:   NewRedlockFenced,
	},
	{
		Name: "fenced-no-tag",
		Summary: text.Text{
			EN: "fenced, with its token counter at KEY:fence: no hash tag",
			ZH: "fenced，但令牌计数器放在 KEY:fence，没有哈希标签（hash tag）",
		},
		Fixes: text.Text{
			EN: "on one Redis server, what fenced fixes: a paused holder's late write is rejected by the resource",
			ZH: "在单个 Redis 上与 fenced 一样：暂停后醒来的旧持有者，其迟到的写入会被资源端拒绝",
		},
		Misses: text.Text{
			EN: "on a Redis Cluster the counter hashes to another slot than the lock: the acquire script is refused (CROSSSLOT) and nobody ever gets the lock",
			ZH: "在 Redis Cluster 上计数器和锁不在同一个槽：加锁脚本被拒绝（CROSSSLOT），谁也拿不到锁",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewFencedNoTag,
	},
	{
		Name: "fenced",
		Summary: text.Text{
			EN: "watchdog lock plus a fencing token the resource checks",
			ZH: "看门狗锁加栅栏令牌（fencing token），资源端校验令牌",
		},
		Fixes: text.Text{
			EN: "a paused holder's late write is rejected by the resource",
			ZH: "暂停后醒来的旧持有者，其迟到的写入会被资源端拒绝",
		},
		Misses: text.Text{
			EN: "two clients may still believe they hold it; tokens on one server",
			ZH: "仍可能两个客户端都以为持有锁；令牌计数器在单实例上",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewFenced,
	},
	{
		Name: "reentrant",
		Summary: text.Text{
			EN: "Redisson-style hash of owner → hold count, in Lua",
			ZH: "Redisson 风格：Hash 记录持有者与重入次数（Lua）",
		},
		Fixes: text.Text{
			EN: "the holder can take the lock again without blocking itself",
			ZH: "同一持有者可重复加锁，不会自己挡住自己",
		},
		Misses: text.Text{
			EN: "no renewal; one server; no fencing",
			ZH: "不续期；单实例；没有栅栏令牌",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewReentrant,
	},
	{
		Name: "reentrant-local",
		Summary: text.Text{
			EN: "uuid-lua with the hold count kept in the process: Redis sees only the first acquire and the last release",
			ZH: "uuid-lua 加进程内的重入计数：只有第一次加锁和最后一次释放才访问 Redis",
		},
		Fixes: text.Text{
			EN: "a nested call counts a hold instead of blocking on its own holder; one SET NX takes the lock, so there is no check-then-write race",
			ZH: "嵌套调用只把计数加一，不会自己挡住自己；加锁是一条 SET NX，没有先检查再写入的竞态",
		},
		Misses: text.Text{
			EN: "a nested acquire trusts the local count: it never asks Redis whether the lease ran out, and nothing renews it; one server; no fencing",
			ZH: "嵌套加锁只相信本地计数：从不去 Redis 确认租约是否已过期，也没有任何续期；单实例；没有栅栏令牌",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewReentrantLocal,
	},
	{
		Name: "reentrant-getset",
		Summary: text.Text{
			EN: "the course's reentrant lock: GET, then a plain SET (no NX) if free or ours",
			ZH: "课程里的可重入锁：先 GET，空闲或是自己的就直接 SET（不带 NX）",
		},
		Fixes: text.Text{
			EN: "a nested call does not block on its own holder",
			ZH: "嵌套调用不会被自己挡住",
		},
		Misses: text.Text{
			EN: "check and write are two commands: two clients both read free, both SET, both hold",
			ZH: "判断与写入是两条命令：两个客户端都读到空闲、都 SET、都以为持有锁",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewReentrantGetSet,
	},
	{
		Name: "redisson",
		Summary: text.Text{
			EN: "Redisson's RLock: the reentrant hash, renewed every TTL/3 by a watchdog unless the caller passes a lease time",
			ZH: "Redisson 的 RLock：可重入的 Hash 锁，看门狗每 TTL/3 续期一次——除非调用方传了 leaseTime",
		},
		Fixes: text.Text{
			EN: "lock() with no lease keeps the lock for work of any length; a crashed holder's lock still runs out",
			ZH: "不传 leaseTime 的 lock() 无论业务多久都不丢锁；持有者崩溃后锁仍会过期",
		},
		Misses: text.Text{
			EN: "lock(leaseTime) turns the watchdog off; with no lease a hung thread is renewed forever; pauses; one server",
			ZH: "lock(leaseTime) 会关掉看门狗；不传 leaseTime 时，卡死的线程会被无限续期；进程暂停；单实例",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewRedisson,
	},
	// The read-write lock, and its trap: a read release built from the
	// reentrant lock's.
	{
		Name: "redisson-rw",
		Summary: text.Text{
			EN: "Redisson's RReadWriteLock: many readers or one writer in one hash, each read hold with a key and TTL of its own",
			ZH: "Redisson 的 RReadWriteLock（读写锁）：一个 Hash 里要么多个读者、要么一个写者，每个读锁另有一个带 TTL 的键",
		},
		Fixes: text.Text{
			EN: "readers share the lock; a reader that leaves keeps it for the readers still inside",
			ZH: "读者之间共享锁；一个读者离开时，锁仍为还在读的读者保留",
		},
		Misses: text.Text{
			EN: "what redisson misses; readers that keep coming keep a writer waiting (not fair)",
			ZH: "redisson 没解决的它都没解决；读者源源不断时写者一直等（非公平）",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewRedissonRW,
	},
	{
		Name: "rw-unchecked",
		Summary: text.Text{
			EN: "redisson-rw whose read release is the reentrant lock's: a reader's last release deletes the whole hash",
			ZH: "redisson-rw，但读锁的释放用的是可重入锁的脚本：读者最后一次释放时删掉整个 Hash",
		},
		Fixes: text.Text{
			EN: "nothing over redisson-rw: it is the trap",
			ZH: "比 redisson-rw 没有任何改进：这是个陷阱",
		},
		Misses: text.Text{
			EN: "when the first reader leaves, a writer gets in beside the readers still reading",
			ZH: "第一个读者离开后，写者就能进来，和还在读的读者同时在临界区里",
		},
		Nodes:     1,
		ClockFree: true,
		New:       NewRWUnchecked,
	},
	// Two popular Go libraries, each through an adapter of ordinary library
	// calls.
	{
		Name: "redislock",
		Summary: text.Text{
			EN: "github.com/bsm/redislock: Obtain (SET NX PX in Lua), Release (compare-and-delete)",
			ZH: "github.com/bsm/redislock：Obtain（Lua 里 SET NX PX）、Release（比对并删除）",
		},
		Fixes: text.Text{
			EN: "what uuid-lua fixes: lease, token, atomic release",
			ZH: "与 uuid-lua 相同：有过期时间、唯一标识、原子释放",
		},
		Misses: text.Text{
			EN: "no watchdog (Refresh is yours to call); one server; no fencing",
			ZH: "没有看门狗（Refresh 要自己调用）；单实例；没有栅栏令牌",
		},
		Nodes: 1,
		New:   NewRedislock,
	},
	{
		Name: "redsync",
		Summary: text.Text{
			EN: "github.com/go-redsync/redsync/v4 on one server: SET NX PX, Lua release",
			ZH: "github.com/go-redsync/redsync/v4，单实例：SET NX PX，Lua 释放",
		},
		Fixes: text.Text{
			EN: "what uuid-lua fixes: lease, token, atomic release",
			ZH: "与 uuid-lua 相同：有过期时间、唯一标识、原子释放",
		},
		Misses: text.Text{
			EN: "no watchdog (Extend is yours to call); one server; no fencing",
			ZH: "没有看门狗（Extend 要自己调用）；单实例；没有栅栏令牌",
		},
		Nodes: 1,
		New:   NewRedsync,
	},
	{
		Name: "redsync-redlock",
		Summary: text.Text{
			EN: "github.com/go-redsync/redsync/v4 on 5 servers (Redlock), asking them at once",
			ZH: "github.com/go-redsync/redsync/v4，5 个实例（Redlock），同时向各节点加锁",
		},
		Fixes: text.Text{
			EN: "losing one server does not lose the lock",
			ZH: "单个实例宕机不会丢锁",
		},
		Misses: text.Text{
			EN: "no watchdog; no fencing; restarts without persistence, clock jumps",
			ZH: "没有看门狗；没有栅栏令牌；无持久化重启、时钟跳变",
		},
		Nodes: RedlockNodes,
		New:   NewRedsync,
	},
}

// All returns the catalogue, from the most naive implementation to the most
// careful.
func All() []Info { return append([]Info(nil), catalogue...) }

// Names returns the implementation names in catalogue order.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, in := range catalogue {
		names[i] = in.Name
	}
	return names
}

// KnownNames returns every name Lookup knows: the catalogue's, in order,
// then those of the locks in other languages (Others).
func KnownNames() []string {
	var names []string
	for _, in := range slices.Concat(catalogue, others) {
		names = append(names, in.Name)
	}
	return names
}

// Lookup finds an implementation by name, in the catalogue or among the
// locks in other languages; a name that ends in .py or .js is a lock of
// one's own in Python or JavaScript, by its file (IsOwnFile). The error lists the valid names, and the one
// likely meant (suggest.Unknown).
func Lookup(name string) (Info, error) {
	for _, in := range slices.Concat(catalogue, others) {
		if in.Name == name {
			return in, nil
		}
	}
	if IsOwnFile(name) {
		return own(name)
	}
	return Info{}, errors.New(suggest.Unknown(text.New("implementation", "锁实现"), name, KnownNames()).EN)
}
