package report

import (
	"regexp"
	"strings"

	"github.com/lockstep-sim/lockstep/text"
)

// The self-check is the checklist of the course texts (分布式锁：从 SET NX
// 到 Redlock, its 7 points), each question with the failure modes that
// show what a "no" costs, and the deployment questions and the choice of a
// lock after it. It is written once, here, in both languages, part beside
// part: docs docs writes it as docs/self-check.md, docs --lang zh as the
// Chinese self-check.md beside the Chinese pages, and lockstep site puts
// both on its pages, so that a question added or changed is so in both.

// SelfCheck is the self-check page in lang, Markdown: docs/self-check.md
// in English, and its Chinese, which says it is generated.
func SelfCheck(lang string) string {
	var b strings.Builder
	if lang == "zh" {
		b.WriteString("<!-- 由 `go run . docs --lang zh DIR` 根据 report/selfcheck.go 生成；请修改那个文件，不要改这个文件。 -->\n\n")
	}
	for i, p := range selfCheckParts {
		if i > 0 {
			b.WriteString("\n")
		}
		if p.Table == nil {
			b.WriteString(selfCheckLinks(p.Text.In(lang)) + "\n")
			continue
		}
		writeRow := func(cells []text.Text) {
			b.WriteString("|")
			for _, c := range cells {
				b.WriteString(" " + selfCheckLinks(c.In(lang)) + " |")
			}
			b.WriteString("\n")
		}
		writeRow(p.Table.Head)
		b.WriteString("|" + strings.Repeat("---|", len(p.Table.Head)) + "\n")
		for _, r := range p.Table.Rows {
			writeRow(r)
		}
	}
	return b.String()
}

// selfCheckPart is one part of the page, the parts apart by a blank line:
// a heading, a paragraph or a list as it is written (Text), or a table.
// In either, [[ID]] is a link to lesson ID's page, [`ID`](ID.md), so that
// what each part links is the same in both languages (a test holds them
// to it).
type selfCheckPart struct {
	Text  text.Text
	Table *selfCheckTable
}

// selfCheckTable is a table of the page: its head and rows, each cell in
// both languages.
type selfCheckTable struct {
	Head []text.Text
	Rows [][]text.Text
}

// selfCheckLink is a link to a lesson's page in the parts' text.
var selfCheckLink = regexp.MustCompile(`\[\[([a-z0-9-]+)\]\]`)

// selfCheckLinks writes the links of s, [[ID]], as Markdown.
func selfCheckLinks(s string) string {
	return selfCheckLink.ReplaceAllString(s, "[`$1`]($1.md)")
}

// same is a cell that reads the same in both languages: a number, a name.
func same(s string) text.Text { return text.New(s, s) }

// selfCheckParts are the self-check's parts, in order.
var selfCheckParts = []selfCheckPart{
	{Text: text.New("# Self-check: the usual questions, and the scenarios that answer them",
		"# 自查清单：常见的问题，以及回答它们的场景")},
	{Text: text.New("The checklist every Redis lock should pass before it guards anything, each\n"+
		"question with the failure modes in lockstep that show what happens when the\n"+
		"answer is \"no\" — and where lockstep has nothing to show, it says so. Play any\n"+
		"of them with `go run . play ID --impl NAME`, or open them in the TUI.",
		"每把 Redis 锁在守护任何东西之前都该过一遍的清单。每个问题都配上 lockstep 里的故障模式，演示答“否”时会发生什么；lockstep 演示不了的，也如实说明。任何一个都可以用 `go run . play ID --impl NAME --lang zh` 播放，或用 `go run . --scenario ID --lang zh` 在终端界面里打开。")},
	{Table: &selfCheckTable{
		Head: []text.Text{
			same("#"),
			text.New("question",
				"问题"),
			text.New("what goes wrong otherwise",
				"否则会出什么错"),
			text.New("see",
				"见"),
		},
		Rows: [][]text.Text{
			{
				same("1"),
				text.New("Are NX and EX in **one** `SET`?",
					"NX 和 EX 是否在**同一条** `SET` 里？"),
				text.New("A client that crashes between `SETNX` and `EXPIRE` leaves a lock that never expires; everyone waits forever.",
					"在 `SETNX` 和 `EXPIRE` 之间崩溃的客户端会留下一把永不过期的锁，所有人永远等下去。"),
				text.New("[[setnx-no-ex]]: `setnx` and `setnx-expire` break `liveness`, `set-nx-ex` does not",
					"[[setnx-no-ex]]：`setnx` 和 `setnx-expire` 破坏 `liveness`，`set-nx-ex` 不会"),
			},
			{
				same("2"),
				text.New("Is the value a **unique token** per holder?",
					"value 是否为每个持有者的**唯一标识**？"),
				text.New("With a constant value, a holder whose lease ran out deletes the next holder's lock (误删).",
					"value 是常量时，租约已过期的持有者会删掉下一个持有者的锁（误删）。"),
				text.New("[[del-other]]: `set-nx-ex` breaks `ownership`, `uuid-get-del` does not",
					"[[del-other]]：`set-nx-ex` 破坏 `ownership`，`uuid-get-del` 不会"),
			},
			{
				same("3"),
				text.New("Is the release a **Lua compare-and-delete** (one command)?",
					"释放是否用 **Lua 脚本比对并删除**（一条命令）？"),
				text.New("`GET`, compare, then `DEL` is two commands: the lock can change hands between them.",
					"`GET`、比对、再 `DEL` 是两条命令：锁可能在两条命令之间易主。"),
				text.New("[[get-then-del]]: `uuid-get-del` breaks `ownership`, `uuid-lua` does not",
					"[[get-then-del]]：`uuid-get-del` 破坏 `ownership`，`uuid-lua` 不会"),
			},
			{
				same("3a"),
				text.New("Is the release in a **finally block** (every path, the error path too), and does it release **only a lock still held** (`if (lock.isHeldByCurrentThread()) lock.unlock();`)?",
					"释放锁是否写在 **finally 块**里（每条路径都释放，出错的路径也一样），并且**只释放自己还持有的锁**（`if (lock.isHeldByCurrentThread()) lock.unlock();`）？"),
				text.New("A critical section that throws skips a release written after it: the lock stays until its lease runs out, and with no lease for ever; a release that does not check ownership, run late on the error path, deletes the next holder's lock (误删).",
					"临界区抛出异常，会跳过写在它后面的释放：锁一直留到租约过期，没有租约就永远留着；不检查归属的释放在出错的路径上迟迟执行，会删掉下一个持有者的锁（误删）。"),
				text.New("[[release-on-error]]: with the release in a finally block every lock lets B in 0.5s after A's error; [[setnx-no-ex]]: a lock that is never released and has no lease; [[del-other]]: a release that does not check ownership",
					"[[release-on-error]]：释放写在 finally 里，A 出错后 0.5 秒 B 就拿到锁；[[setnx-no-ex]]：从不释放、也没有租约的锁；[[del-other]]：不检查归属的释放"),
			},
			{
				same("4"),
				text.New("Is the **TTL longer than the worst-case work** (P99, not the median), or is there a **watchdog**, and is the critical section **split so it is short**?",
					"**TTL 是否大于业务最坏的耗时**（P99，而不是中位数），或者有没有**看门狗**，临界区是否**拆分得足够短**？"),
				text.New("The lease runs out while the holder works; a second client walks in and one update is lost.",
					"持有者还在干活，租约就到期了；第二个客户端进来，一次更新丢失。"),
				text.New("[[lease-too-short]], [[del-other]]: every lease without renewal breaks `mutex`; `uuid-lua-watchdog` does not; [[short-section]]: with the work that does not read or write the data moved out of the lock, a 5s section fits a 10s lease and `uuid-lua` breaks nothing",
					"[[lease-too-short]]、[[del-other]]：没有续期的租约都会破坏 `mutex`；`uuid-lua-watchdog` 不会；[[short-section]]：把不读写数据的工作挪到锁外，临界区只剩 5 秒，10 秒的租约下 `uuid-lua` 什么都不破坏"),
			},
			{
				same("4a"),
				text.New("Does the watchdog have a **renewal cap**, and does every call inside the critical section have a **timeout**?",
					"看门狗是否有**续期上限**，临界区里的每一次调用是否都有**超时**？"),
				text.New("A hung business thread in a live process is renewed for as long as it hangs — forever, if it never returns (看门狗无限续期); with a cap it loses the lock and, when it wakes, writes stale data.",
					"进程活着而业务线程卡死时，卡多久看门狗就续期多久，永不返回就无限续期；有上限时它会丢锁，醒来后写入过时的数据。"),
				text.New("[[hung-holder]]: `uuid-lua-watchdog-uncapped` breaks `liveness`; the capped one `mutex` and `resource`; `fenced` only `mutex`",
					"[[hung-holder]]：`uuid-lua-watchdog-uncapped` 破坏 `liveness`；有上限的破坏 `mutex` 和 `resource`；`fenced` 只破坏 `mutex`"),
			},
			{
				same("4b"),
				text.New("Can the holder **pause** (GC, VM migration) longer than the lease, or lose the network to Redis while it works?",
					"持有者会不会**停顿**（GC、虚拟机迁移）超过租约，或者干活时和 Redis 断了网？"),
				text.New("No lease survives it, the watchdog's included: the paused or cut-off holder goes on believing and writes. A check before the write (`GET key == my token`) catches a pause before it, not one after it.",
					"没有哪种租约扛得住，看门狗的也不例外：停顿或断网的持有者仍然相信自己持有锁，照样写入。写入前的检查（`GET key == 我的标识`）拦得住检查之前的停顿，拦不住检查之后的。"),
				text.New("[[partition]]: the same with a live process; [[gc-pause]]: every lease breaks `resource` but those whose fencing token the store checks: `redlock-fenced`, `fenced-no-tag`, `fenced`, `node-simple-redis-mutex` and `node-simple-redis-mutex-refresh`; [[check-then-write]]: the same with a check before each write",
					"[[partition]]：进程活着也一样；[[gc-pause]]：每种租约都破坏 `resource`，只有资源端校验其栅栏令牌的除外：`redlock-fenced`、`fenced-no-tag`、`fenced`、`node-simple-redis-mutex` 和 `node-simple-redis-mutex-refresh`；[[check-then-write]]：每次写入前都检查，结果也一样"),
			},
			{
				same("4c"),
				text.New("Does the watchdog's **renewal check the token** (a compare-and-PEXPIRE script), as the release does?",
					"看门狗的**续期是否校验标识**（先比对再 PEXPIRE 的脚本），和释放一样？"),
				text.New("A holder whose lease ran out without it knowing (a pause) wakes up and its watchdog extends the next holder's lock (续期了别人的锁); `PEXPIRE` says yes, so it never learns it lost the lock.",
					"租约在不知不觉中到期的持有者（一次停顿）醒来后，它的看门狗给下一个持有者的锁续了期；`PEXPIRE` 返回成功，它永远不知道锁已经丢了。"),
				text.New("[[renew-other]]: `watchdog-unchecked` breaks `ownership`; `uuid-lua-watchdog` does not",
					"[[renew-other]]：`watchdog-unchecked` 破坏 `ownership`；`uuid-lua-watchdog` 不会"),
			},
			{
				same("4d"),
				text.New("With Redisson: do you pass a **lease time** (`lock(10, SECONDS)`, `tryLock(wait, lease, unit)`)?",
					"用 Redisson 时，是否传了 **leaseTime**（`lock(10, SECONDS)`、`tryLock(wait, lease, unit)`）？"),
				text.New("An explicit lease turns Redisson's watchdog off (看门狗): work that outlasts it loses the lock, as with no watchdog at all. Pass one only with a timeout on the work shorter than it.",
					"显式传入的 leaseTime 会关掉 Redisson 的看门狗：业务比它长，锁就丢了，和没有看门狗一样。只有业务本身有比它短的超时时，才传 leaseTime。"),
				text.New("[[redisson-lease]]: `redisson` breaks `mutex` and `resource` for A's `lock(10s)` and keeps C's `lock()` renewed; the watchdogs that renew any lease do not break",
					"[[redisson-lease]]：A 用 `lock(10s)` 时 `redisson` 破坏 `mutex` 和 `resource`，C 用 `lock()` 时一直续期；对任何租约都续期的看门狗不会破坏"),
			},
			{
				same("5"),
				text.New("Does a failed acquire **retry with backoff and a cap**?",
					"获取锁失败后的重试是否有**退避与上限**？"),
				text.New("A spinning waiter floods the server with refused commands (and a Redlock multiplies them by its nodes); waiters that fail together come back together without jitter; a cap on the backoff bounds each wait, not the total: a waiter with no limit on its attempts waits forever behind an orphaned lock.",
					"自旋的等待者用被拒绝的命令淹没服务器（Redlock 还要乘以节点数）；没有抖动，一起失败的等待者会一起回来。退避的上限只管每一次等待；尝试次数没有上限（也没有截止时间）的等待者，会在一把无人释放的锁后面永远等下去。"),
				text.New("[[retries]]: a spinner, a backoff with jitter and a fail-fast client, each with its command count and wait; [[setnx-no-ex]] and [[hung-holder]] show waiters with no cap on attempts; [[give-up]]: a waiter with a limit of 5 attempts gives up at t=16s whatever the lock, one without waits for the lease, or for ever under `setnx` (`liveness`)",
					"[[retries]]：自旋、带抖动的退避、快速失败三种客户端，各自的命令数和等待时间；[[setnx-no-ex]] 和 [[hung-holder]] 里的等待者尝试次数没有上限；[[give-up]]：尝试上限为 5 次的等待者不管是哪种锁，都在第 16 秒放弃，没有上限的要等到租约过期，用 `setnx` 时永远等下去（`liveness`）"),
			},
			{
				same("6"),
				text.New("In **Redis Cluster**, do the keys one script touches share a slot (**hash tags**)?",
					"在 **Redis Cluster** 里，一个脚本用到的 key 是否在同一个槽里（**hash tag**）？"),
				text.New("A script over keys in two slots fails with `CROSSSLOT`, on every call: a lock that passes every test on one Redis fails on the first request in a cluster. Put the keys one script touches under one hash tag: `{lock:product:1001}:fence` is hashed on `lock:product:1001` alone, so it shares the lock's slot.",
					"跨两个槽的脚本会以 `CROSSSLOT` 失败，而且每次都失败：在单个 Redis 上什么测试都能通过的锁，到了集群上第一个请求就失败。一个脚本用到的 key 要放在同一个哈希标签下：`{lock:product:1001}:fence` 只按 `lock:product:1001` 计算哈希，和锁在同一个槽。"),
				text.New("[[cluster-slots]]: `fenced-no-tag` (counter at `lock:product:1001:fence`) is refused with `CROSSSLOT` on every attempt and nobody ever holds the lock (`liveness`); `fenced` (the hash tag) runs. `lockimpl/fenced.go` (`FenceKey`)",
					"[[cluster-slots]]：`fenced-no-tag`（计数器在 `lock:product:1001:fence`）每次尝试都被 `CROSSSLOT` 拒绝，谁也拿不到锁（`liveness`）；`fenced`（用了哈希标签）照常执行。`lockimpl/fenced.go`（`FenceKey`）"),
			},
			{
				same("7"),
				text.New("Is the **critical section idempotent**, or does the resource check a **fencing token** or a version?",
					"**临界区是否幂等**，或者资源端是否校验**栅栏令牌**（fencing token）或版本号？"),
				text.New("When the lock fails — and the rows below show it can — the data is the last line of defence.",
					"锁失效时——这张表里的场景表明它会失效——数据就是最后一道防线。"),
				text.New("[[idempotent-section]]: the same pause as [[gc-pause]] over a job with an idempotency key: both holders run it and nothing is lost, for every lock (最坏也只是重复做一遍); [[gc-pause]], [[hung-holder]], [[redlock-clock-jump]]: `fenced` keeps `resource` where the others lose an update; the database's own guards do it for every lock: a version check in [[guard-version]], a unique key in [[guard-unique]], and `WHERE stock > 0` in [[guard-in-stock]] (which stops an oversell of the last item, not a lost update); and no lock at all where the whole critical section is one statement: `SET stock = stock - 1 WHERE stock > 0` in [[guard-relative]]; the lock's own random token as a check-and-set in [[guard-token]] (antirez's answer to Kleppmann: it works for every lock whose value is unique per hold, not for `set-nx-ex`'s constant)",
					"[[idempotent-section]]：和 [[gc-pause]] 一样的停顿，落在带幂等键的任务上：两个持有者都执行了，什么都没丢，每种锁都是如此（最坏也只是重复做一遍）；[[gc-pause]]、[[hung-holder]]、[[redlock-clock-jump]]：别的实现丢失更新的地方，`fenced` 守住了 `resource`；数据库自己的防线对每种锁都有效：[[guard-version]] 里的版本号校验、[[guard-unique]] 里的唯一约束，以及 [[guard-in-stock]] 里的 `WHERE stock > 0`（它防的是最后一件的超卖，不是丢失的更新）；整个临界区只是一条语句时，根本不用锁：[[guard-relative]] 里的 `SET stock = stock - 1 WHERE stock > 0`；[[guard-token]] 里把锁自己的随机标识用作 check-and-set（antirez 对 Kleppmann 的回应：只要锁的值对每次持有都唯一就有效，`set-nx-ex` 的常量值不行）"),
			},
		},
	}},
	{Text: text.New("Before the checklist: **is there a lock across processes at all?** Without one, or with a `sync.Mutex` that each server has for itself, concurrent read-modify-writes lose updates: [[oversell]]: `no-lock` and `local-mutex` break `mutex` and `resource`; every Redis lock holds.",
		"清单之前先问：**到底有没有跨进程的锁？** 没有锁，或者每台服务器各用自己的 `sync.Mutex`，并发的读、改、写就会丢失更新：[[oversell]]：`no-lock` 和 `local-mutex` 破坏 `mutex` 和 `resource`；每一种 Redis 锁都守住了。")},
	{Text: text.New("Beyond the checklist, the deployment:",
		"清单之外，是部署：")},
	{Table: &selfCheckTable{
		Head: []text.Text{
			text.New("question",
				"问题"),
			text.New("see",
				"见"),
		},
		Rows: [][]text.Text{
			{
				text.New("One Redis with a replica: what does a **failover** lose?",
					"一个 Redis 带一个从库：**主从切换**会丢掉什么？"),
				text.New("[[failover]]: every single-instance lock breaks `mutex`; Redlock does not. [[failover-release]]: then the old holder, still within its lease, releases: a `DEL` that checks no token (`set-nx-ex`, `node-redis-lock`) deletes the new holder's lock, and a third client gets in",
					"[[failover]]：每种单实例锁都破坏 `mutex`；Redlock 不会。[[failover-release]]：随后旧持有者在租期之内释放：不校验令牌的 `DEL`（`set-nx-ex`、`node-redis-lock`）误删了新持有者的锁，第三个客户端也进来了"),
			},
			{
				text.New("Does **WAIT** for the replica help?",
					"等从库确认的 **WAIT** 有用吗？"),
				text.New("[[failover-wait]]: `uuid-lua-wait` keeps every invariant; in [[failover]], with no replica left, it breaks `liveness` instead",
					"[[failover-wait]]：`uuid-lua-wait` 守住了每个不变量；在 [[failover]] 里没有从库剩下，它转而破坏 `liveness`"),
			},
			{
				text.New("Is the lock's **key as fine as the data** it guards (`lock:order:8801`, not `lock:orders`)?",
					"锁的 **key 是否和它保护的数据一样细**（`lock:order:8801`，而不是 `lock:orders`）？"),
				text.New("[[granularity]]: under one key for all orders three unrelated orders take turns, and the third waits 10 s; under a key per order none waits. A key finer than the data is a bug: the lock must cover what the critical section writes",
					"[[granularity]]：所有订单共用一个 key 时，三个互不相干的订单只能轮流处理，第三个要等 10 秒；每个订单一个 key 时谁也不用等。key 比数据更细是 bug：锁要覆盖临界区写入的数据"),
			},
			{
				text.New("Does the lock need to be **reentrant** (nested code takes it again)?",
					"锁需要**可重入**吗（嵌套的代码再次获取它）？"),
				text.New("[[reentrant-call]]: every lock but the reentrant ones (`reentrant`, `reentrant-local`, `reentrant-getset`, `redisson`, `redisson-rw`, `rw-unchecked`) deadlocks on itself; [[reentrant-race]]: a reentrant lock that checks with `GET` and writes with a plain `SET` (`reentrant-getset`, the course's own) lets two clients in",
					"[[reentrant-call]]：除了可重入的锁（`reentrant`、`reentrant-local`、`reentrant-getset`、`redisson`、`redisson-rw`、`rw-unchecked`），都会自己锁死自己；[[reentrant-race]]：用 `GET` 检查、用不带 NX 的 `SET` 写入的可重入锁（`reentrant-getset`，课程自己的写法）会放两个客户端进来"),
			},
			{
				text.New("Do **readers** wait for each other (a read-write lock)?",
					"**读者**之间要互相等吗（读写锁）？"),
				text.New("[[read-write]]: `redisson-rw` lets readers in together and a writer in alone; a read release that deletes the whole hash (`rw-unchecked`) lets a writer in beside a reader still reading; a lock with no read mode is safe and makes readers take turns",
					"[[read-write]]：`redisson-rw` 让读者一起进、写者单独进；一个删掉整个 Hash 的读锁释放（`rw-unchecked`）会让写者在读者还在读时进来；没有读模式的锁是安全的，只是读者要轮流"),
			},
			{
				text.New("**Redlock**: do the nodes persist what they hold, and are their clocks stepped?",
					"**Redlock**：节点是否持久化它们持有的锁，时钟会不会被拨动？"),
				text.New("[[redlock-restart]], [[redlock-clock-jump]]: a second majority; [[clock-back]]: a clock set back only makes a key live longer, a wait and never a second holder; [[redlock-delayed-restart]]: staying down for a TTL keeps it safe; [[redlock-shared-host]]: nodes that share a machine fail together; [[redlock-acquire-pause]] and [[redlock-slow-node]]: the acquire must bound how long it takes: a short timeout per node (TTL/200, 50 ms for a 10s lease) and the check validity = TTL − elapsed − drift; [[redlock-partial]]: a failed acquire releases on every node, also one whose reply was lost",
					"[[redlock-restart]]、[[redlock-clock-jump]]：出现第二个多数派；[[clock-back]]：时钟回拨只会让 key 活得更久，代价是等待，不会出现第二个持有者；[[redlock-delayed-restart]]：宕机后等满一个 TTL 再回来就是安全的；[[redlock-shared-host]]：共用一台机器的节点会一起失效；[[redlock-acquire-pause]] 和 [[redlock-slow-node]]：加锁必须限定自己花多长时间：每个节点一个很短的超时（TTL/200，10 秒的租约是 50 毫秒），再检查有效期 = TTL − 耗时 − 时钟漂移；[[redlock-partial]]：加锁失败后要在每个节点上释放，包括应答丢失的那个"),
			},
			{
				text.New("**Redlock** and a fencing token?",
					"**Redlock** 与栅栏令牌？"),
				text.New("[[redlock-fence]]: Redlock has none; `redlock-fenced` makes one from the nodes' counters (the largest count of the majority), which refuses a paused holder's late write until a node restarts empty and the next majority hands out the same token again",
					"[[redlock-fence]]：Redlock 没有栅栏令牌；`redlock-fenced` 用各节点的计数器造了一个（多数派里最大的计数），它能拒绝停顿醒来的旧持有者的写入，直到某个节点空着重启，下一个多数派又发出同一个令牌"),
			},
		},
	}},
	{Text: text.New("The honest summary of the course texts: a Redis lock is an efficiency tool\n"+
		"that is right almost always; where correctness matters (money, stock), the\n"+
		"resource must defend itself — a fencing token, a version check, a unique\n"+
		"constraint. The `guard-…` lessons show each of the database's guards\n"+
		"catching a write that the lock let through.",
		"对课程文本的诚实总结：Redis 锁是一种效率工具，几乎总是对的；在正确性要紧的地方（钱、库存），资源端必须自己设防——栅栏令牌、版本号校验、唯一约束。这几个 `guard-…` 课程演示了数据库的每一种防线如何拦下锁放进来的写入。")},
	{Text: text.New("## Which lock for which job",
		"## 什么场景用什么锁")},
	{Text: text.New("The course's practical table, with the lessons that show why:",
		"课程里的务实结论，附上说明原因的课程：")},
	{Table: &selfCheckTable{
		Head: []text.Text{
			text.New("the job",
				"场景"),
			text.New("the lock",
				"方案"),
			text.New("why",
				"原因"),
		},
		Rows: [][]text.Text{
			{
				text.New("a counter, a stock decrement: the whole critical section is one statement",
					"计数器、库存扣减：整个临界区就是一条语句"),
				text.New("no lock: a relative update in the database (`SET n = n - 1 WHERE n > 0`), or Redis's own `DECR`/`INCRBY`",
					"不用锁：数据库里的相对更新（`SET n = n - 1 WHERE n > 0`），或 Redis 自己的 `DECR`/`INCRBY`"),
				text.New("when no client computes the new value from its read, no update can be lost: [[guard-relative]]; \"only once\" can be left to a unique constraint ([[guard-unique]])",
					"没有哪个客户端根据读数算新值，就不会丢更新：[[guard-relative]]；“只做一次”可以交给唯一约束（[[guard-unique]]）"),
			},
			{
				text.New("keep a cache from being rebuilt twice; keep a cron job from running twice",
					"防缓存重复重建、定时任务防重跑"),
				text.New("one Redis, `SET key token NX EX ttl` and a Lua release (`uuid-lua`)",
					"单实例 `SET key token NX EX ttl` 加 Lua 释放（`uuid-lua`），足够"),
				text.New("a lost lock costs a second rebuild or run, no more: [[failover]] and [[gc-pause]] show the rare windows, which this job can afford",
					"丢一次锁的代价只是多重建一次、多跑一次：[[failover]] 和 [[gc-pause]] 演示了那些罕见的窗口，这类任务承受得起"),
			},
			{
				text.New("ordinary mutual exclusion, with idempotent work or a check at the data behind it",
					"一般业务互斥（有幂等或数据端校验兜底）"),
				text.New("one Redis, or a primary with a replica and Sentinel, accepting the failover window",
					"单实例或主从 + 哨兵，接受极小的窗口"),
				text.New("the window is small and the data's own check catches what slips through: [[guard-unique]], [[guard-version]]",
					"窗口很小，漏过去的由数据自己的校验拦下：[[guard-unique]]、[[guard-version]]"),
			},
			{
				text.New("money, stock, anything that must never be done twice",
					"涉及资金、库存等强正确性"),
				text.New("the lock only as an optimisation; correctness from the data: a constraint, a version, a fencing token the data checks",
					"锁只做优化，最终正确性靠数据：约束、版本号、由数据端校验的栅栏令牌"),
				text.New("no lease lock survives a pause ([[gc-pause]]), nor Redlock a restart ([[redlock-restart]], [[redlock-fence]])",
					"没有哪种租约锁扛得住停顿（[[gc-pause]]），Redlock 也扛不住重启（[[redlock-restart]]、[[redlock-fence]]）"),
			},
		},
	}},
	{Text: text.New("## Where correctness matters: ZooKeeper and etcd",
		"## 正确性场景：ZooKeeper 与 etcd")},
	{Text: text.New("The course's conclusion of the Redlock debate: for correctness, use a\n"+
		"system with fencing tokens — ZooKeeper or etcd — or defend the resource\n"+
		"itself. What they give that Redis does not:",
		"课程对 Redlock 辩论的结论：正确性场景应该用有栅栏令牌的系统——ZooKeeper 或 etcd——或者在资源端做防护。它们给了 Redis 给不了的东西：")},
	{Text: text.New("- **Consensus**: a write is acknowledged once a majority of the ensemble\n"+
		"  has it on disk (Zab, Raft), and a member that restarts catches up from\n"+
		"  the others. No lock is lost to a failover with asynchronous replication\n"+
		"  ([[failover]]), nor to a restart without persistence\n"+
		"  ([[redlock-restart]]).\n"+
		"- **A fencing token for free**: every change gets a number that only\n"+
		"  grows — ZooKeeper's zxid (a lock znode's czxid), etcd's revision (its\n"+
		"  lock API returns the lock key's revision) — one sequence for the whole\n"+
		"  cluster, which Redlock's counters are not ([[redlock-fence]]).\n"+
		"- **Sessions instead of guessed leases**: a ZooKeeper ephemeral node, or an\n"+
		"  etcd key attached to a lease that the client keeps alive, goes when its\n"+
		"  client's session does; waiters watch the key and are told, instead of\n"+
		"  polling ([[retries]]).",
		"- **共识**：一次写入要等集群的多数派都落盘才确认（Zab、Raft），重启的成员会从其他成员那里追上进度。异步复制下的主从切换（[[failover]]）和无持久化重启（[[redlock-restart]]）都不会丢锁。\n"+
			"- **天然的栅栏令牌**：每次变更都有一个只增不减的编号——ZooKeeper 的 zxid（锁节点的 czxid），etcd 的 revision（它的锁接口返回锁 key 的 revision）——整个集群只有这一个序列，而 Redlock 的计数器做不到（[[redlock-fence]]）。\n"+
			"- **会话代替猜出来的租约**：ZooKeeper 的临时节点，或者挂在客户端持续续约的 lease 上的 etcd key，会随客户端的会话一起消失；等待者监听（watch）这个 key，会被通知，不用轮询（[[retries]]）。")},
	{Text: text.New("What they do not give: a client that pauses past its session still wakes up\n"+
		"believing it holds the lock. Only the resource's check of the token stops\n"+
		"its write, as in [[gc-pause]] with `fenced`.",
		"它们给不了的：停顿超过会话的客户端醒来时，照样以为自己持有锁。只有资源端对令牌的校验能拦住它的写入，就像 [[gc-pause]] 里的 `fenced`。")},
}
