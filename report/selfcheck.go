package report

// selfCheckZH is docs/self-check.md in Chinese: the checklist of the
// course texts (分布式锁：从 SET NX 到 Redlock, its 7 points), each
// question with the failure modes that show what a "no" costs. docs
// --lang zh writes it as self-check.md beside the Chinese pages, which
// link it. The English page is written by hand in docs/; a test keeps the
// two linking the same failure modes, with the same rows.
const selfCheckZH = `<!-- 由 ` + "`go run . docs --lang zh DIR`" + ` 根据 report/selfcheck.go 生成，它是 docs/self-check.md 的中文版；请修改那些文件，不要改这个文件。 -->

# 自查清单：常见的问题，以及回答它们的场景

每把 Redis 锁在守护任何东西之前都该过一遍的清单。每个问题都配上 lockstep 里的故障模式，演示答“否”时会发生什么；lockstep 演示不了的，也如实说明。任何一个都可以用 ` + "`go run . play ID --impl NAME --lang zh`" + ` 播放，或用 ` + "`go run . --scenario ID --lang zh`" + ` 在终端界面里打开。

| # | 问题 | 否则会出什么错 | 见 |
|---|---|---|---|
| 1 | NX 和 EX 是否在**同一条** ` + "`SET`" + ` 里？ | 在 ` + "`SETNX`" + ` 和 ` + "`EXPIRE`" + ` 之间崩溃的客户端会留下一把永不过期的锁，所有人永远等下去。 | [` + "`setnx-no-ex`" + `](setnx-no-ex.md)：` + "`setnx`" + ` 和 ` + "`setnx-expire`" + ` 破坏 ` + "`liveness`" + `，` + "`set-nx-ex`" + ` 不会 |
| 2 | value 是否为每个持有者的**唯一标识**？ | value 是常量时，租约已过期的持有者会删掉下一个持有者的锁（误删）。 | [` + "`del-other`" + `](del-other.md)：` + "`set-nx-ex`" + ` 破坏 ` + "`ownership`" + `，` + "`uuid-get-del`" + ` 不会 |
| 3 | 释放是否用 **Lua 脚本比对并删除**（一条命令）？ | ` + "`GET`" + `、比对、再 ` + "`DEL`" + ` 是两条命令：锁可能在两条命令之间易主。 | [` + "`get-then-del`" + `](get-then-del.md)：` + "`uuid-get-del`" + ` 破坏 ` + "`ownership`" + `，` + "`uuid-lua`" + ` 不会 |
| 3a | 释放锁是否写在 **finally 块**里（每条路径都释放，出错的路径也一样），并且**只释放自己还持有的锁**（` + "`if (lock.isHeldByCurrentThread()) lock.unlock();`" + `）？ | 临界区抛出异常，会跳过写在它后面的释放：锁一直留到租约过期，没有租约就永远留着；不检查归属的释放在出错的路径上迟迟执行，会删掉下一个持有者的锁（误删）。 | [` + "`release-on-error`" + `](release-on-error.md)：释放写在 finally 里，A 出错后 0.5 秒 B 就拿到锁；[` + "`setnx-no-ex`" + `](setnx-no-ex.md)：从不释放、也没有租约的锁；[` + "`del-other`" + `](del-other.md)：不检查归属的释放 |
| 4 | **TTL 是否大于业务最坏的耗时**（P99，而不是中位数），或者有没有**看门狗**，临界区是否**拆分得足够短**？ | 持有者还在干活，租约就到期了；第二个客户端进来，一次更新丢失。 | [` + "`lease-too-short`" + `](lease-too-short.md)、[` + "`del-other`" + `](del-other.md)：没有续期的租约都会破坏 ` + "`mutex`" + `；` + "`uuid-lua-watchdog`" + ` 不会；[` + "`short-section`" + `](short-section.md)：把不读写数据的工作挪到锁外，临界区只剩 5 秒，10 秒的租约下 ` + "`uuid-lua`" + ` 什么都不破坏 |
| 4a | 看门狗是否有**续期上限**，临界区里的每一次调用是否都有**超时**？ | 进程活着而业务线程卡死时，看门狗会无限续期；有上限时它会丢锁，醒来后写入过时的数据。 | [` + "`hung-holder`" + `](hung-holder.md)：` + "`uuid-lua-watchdog-uncapped`" + ` 破坏 ` + "`liveness`" + `；有上限的破坏 ` + "`mutex`" + ` 和 ` + "`resource`" + `；` + "`fenced`" + ` 只破坏 ` + "`mutex`" + ` |
| 4c | 看门狗的**续期是否校验标识**（先比对再 PEXPIRE 的脚本），和释放一样？ | 租约在不知不觉中到期的持有者（一次停顿）醒来后，它的看门狗给下一个持有者的锁续了期；` + "`PEXPIRE`" + ` 返回成功，它永远不知道锁已经丢了。 | [` + "`renew-other`" + `](renew-other.md)：` + "`watchdog-unchecked`" + ` 破坏 ` + "`ownership`" + `；` + "`uuid-lua-watchdog`" + ` 不会 |
| 4b | 持有者会不会**停顿**（GC、虚拟机迁移）超过租约，或者干活时和 Redis 断了网？ | 没有哪种租约扛得住，看门狗的也不例外：停顿或断网的持有者仍然相信自己持有锁，照样写入。 | [` + "`partition`" + `](partition.md)：进程活着也一样；[` + "`gc-pause`" + `](gc-pause.md)：除了 ` + "`fenced`" + `，每种租约都破坏 ` + "`resource`" + ` |
| 4d | 用 Redisson 时，是否传了 **leaseTime**（` + "`lock(10, SECONDS)`" + `、` + "`tryLock(wait, lease, unit)`" + `）？ | 显式传入的 leaseTime 会关掉 Redisson 的看门狗：业务比它长，锁就丢了，和没有看门狗一样。只有业务本身有比它短的超时时，才传 leaseTime。 | [` + "`redisson-lease`" + `](redisson-lease.md)：A 用 ` + "`lock(10s)`" + ` 时 ` + "`redisson`" + ` 破坏 ` + "`mutex`" + ` 和 ` + "`resource`" + `，C 用 ` + "`lock()`" + ` 时一直续期；对任何租约都续期的看门狗不会破坏 |
| 5 | 获取锁失败后的重试是否有**退避与上限**？ | 自旋的等待者用被拒绝的命令淹没服务器（Redlock 还要乘以节点数）；没有抖动，一起失败的等待者会一起回来。退避的上限只管每一次等待；尝试次数没有上限（也没有截止时间）的等待者，会在一把无人释放的锁后面永远等下去。 | [` + "`retries`" + `](retries.md)：自旋、带抖动的退避、快速失败三种客户端，各自的命令数和等待时间；[` + "`setnx-no-ex`" + `](setnx-no-ex.md) 和 [` + "`hung-holder`" + `](hung-holder.md) 里的等待者尝试次数没有上限；[` + "`give-up`" + `](give-up.md)：尝试上限为 5 次的等待者不管是哪种锁，都在第 16 秒放弃，没有上限的要等到租约过期，用 ` + "`setnx`" + ` 时永远等下去（` + "`liveness`" + `） |
| 6 | 在 **Redis Cluster** 里，一个脚本用到的 key 是否在同一个槽里（**hash tag**）？ | 跨两个槽的脚本会以 ` + "`CROSSSLOT`" + ` 失败，而且每次都失败：在单个 Redis 上什么测试都能通过的锁，到了集群上第一个请求就失败。一个脚本用到的 key 要放在同一个哈希标签下：` + "`{lock:product:1001}:fence`" + ` 只按 ` + "`lock:product:1001`" + ` 计算哈希，和锁在同一个槽。 | [` + "`cluster-slots`" + `](cluster-slots.md)：` + "`fenced-no-tag`" + `（计数器在 ` + "`lock:product:1001:fence`" + `）每次尝试都被 ` + "`CROSSSLOT`" + ` 拒绝，谁也拿不到锁（` + "`liveness`" + `）；` + "`fenced`" + `（用了哈希标签）照常执行。` + "`lockimpl/fenced.go`" + `（` + "`FenceKey`" + `） |
| 7 | **临界区是否幂等**，或者资源端是否校验**栅栏令牌**（fencing token）或版本号？ | 锁失效时——这张表里的场景表明它会失效——数据就是最后一道防线。 | [` + "`gc-pause`" + `](gc-pause.md)、[` + "`hung-holder`" + `](hung-holder.md)、[` + "`redlock-clock-jump`" + `](redlock-clock-jump.md)：别的实现丢失更新的地方，` + "`fenced`" + ` 守住了 ` + "`resource`" + `；数据库自己的防线对每种锁都有效：[` + "`guard-version`" + `](guard-version.md) 里的版本号校验、[` + "`guard-unique`" + `](guard-unique.md) 里的唯一约束，以及 [` + "`guard-in-stock`" + `](guard-in-stock.md) 里的 ` + "`WHERE stock > 0`" + `（它防的是最后一件的超卖，不是丢失的更新）；整个临界区只是一条语句时，根本不用锁：[` + "`guard-relative`" + `](guard-relative.md) 里的 ` + "`SET stock = stock - 1 WHERE stock > 0`" + `；[` + "`guard-token`" + `](guard-token.md) 里把锁自己的随机标识用作 check-and-set（antirez 对 Kleppmann 的回应：只要锁的值对每次持有都唯一就有效，` + "`set-nx-ex`" + ` 的常量值不行） |

清单之前先问：**到底有没有跨进程的锁？** 没有锁，或者每台服务器各用自己的 ` + "`sync.Mutex`" + `，并发的读、改、写就会丢失更新：[` + "`oversell`" + `](oversell.md)：` + "`no-lock`" + ` 和 ` + "`local-mutex`" + ` 破坏 ` + "`mutex`" + ` 和 ` + "`resource`" + `；每一种 Redis 锁都守住了。

清单之外，是部署：

| 问题 | 见 |
|---|---|
| 一个 Redis 带一个从库：**主从切换**会丢掉什么？ | [` + "`failover`" + `](failover.md)：每种单实例锁都破坏 ` + "`mutex`" + `；Redlock 不会 |
| 等从库确认的 **WAIT** 有用吗？ | [` + "`failover-wait`" + `](failover-wait.md)：` + "`uuid-lua-wait`" + ` 守住了每个不变量；在 [` + "`failover`" + `](failover.md) 里没有从库剩下，它转而破坏 ` + "`liveness`" + ` |
| 锁的 **key 是否和它保护的数据一样细**（` + "`lock:order:8801`" + `，而不是 ` + "`lock:orders`" + `）？ | [` + "`granularity`" + `](granularity.md)：所有订单共用一个 key 时，三个互不相干的订单只能轮流处理，第三个要等 10 秒；每个订单一个 key 时谁也不用等。key 比数据更细是 bug：锁要覆盖临界区写入的数据 |
| 锁需要**可重入**吗（嵌套的代码再次获取它）？ | [` + "`reentrant-call`" + `](reentrant-call.md)：除了可重入的锁（` + "`reentrant`" + `、` + "`reentrant-local`" + `、` + "`reentrant-getset`" + `、` + "`redisson`" + `），都会自己锁死自己；[` + "`reentrant-race`" + `](reentrant-race.md)：用 ` + "`GET`" + ` 检查、用不带 NX 的 ` + "`SET`" + ` 写入的可重入锁（` + "`reentrant-getset`" + `，课程自己的写法）会放两个客户端进来 |
| **Redlock**：节点是否持久化它们持有的锁，时钟会不会被拨动？ | [` + "`redlock-restart`" + `](redlock-restart.md)、[` + "`redlock-clock-jump`" + `](redlock-clock-jump.md)：出现第二个多数派；[` + "`redlock-delayed-restart`" + `](redlock-delayed-restart.md)：宕机后等满一个 TTL 再回来就是安全的；[` + "`redlock-shared-host`" + `](redlock-shared-host.md)：共用一台机器的节点会一起失效；[` + "`redlock-acquire-pause`" + `](redlock-acquire-pause.md) 和 [` + "`redlock-slow-node`" + `](redlock-slow-node.md)：加锁必须限定自己花多长时间：每个节点一个很短的超时（TTL/200，10 秒的租约是 50 毫秒），再检查有效期 = TTL − 耗时 − 时钟漂移；[` + "`redlock-partial`" + `](redlock-partial.md)：加锁失败后要在每个节点上释放，包括应答丢失的那个 |
| **Redlock** 与栅栏令牌？ | [` + "`redlock-fence`" + `](redlock-fence.md)：Redlock 没有栅栏令牌；` + "`redlock-fenced`" + ` 用各节点的计数器造了一个（多数派里最大的计数），它能拒绝停顿醒来的旧持有者的写入，直到某个节点空着重启，下一个多数派又发出同一个令牌 |

对课程文本的诚实总结：Redis 锁是一种效率工具，几乎总是对的；在正确性要紧的地方（钱、库存），资源端必须自己设防——栅栏令牌、版本号校验、唯一约束。这几个 ` + "`guard-…`" + ` 课程演示了数据库的每一种防线如何拦下锁放进来的写入。

## 什么场景用什么锁

课程里的务实结论，附上说明原因的课程：

| 场景 | 方案 | 原因 |
|---|---|---|
| 计数器、库存扣减：整个临界区就是一条语句 | 不用锁：数据库里的相对更新（` + "`SET n = n - 1 WHERE n > 0`" + `），或 Redis 自己的 ` + "`DECR`" + `/` + "`INCRBY`" + ` | 没有哪个客户端根据读数算新值，就不会丢更新：[` + "`guard-relative`" + `](guard-relative.md)；“只做一次”可以交给唯一约束（[` + "`guard-unique`" + `](guard-unique.md)） |
| 防缓存重复重建、定时任务防重跑 | 单实例 ` + "`SET key token NX EX ttl`" + ` 加 Lua 释放（` + "`uuid-lua`" + `），足够 | 丢一次锁的代价只是多重建一次、多跑一次：[` + "`failover`" + `](failover.md) 和 [` + "`gc-pause`" + `](gc-pause.md) 演示了那些罕见的窗口，这类任务承受得起 |
| 一般业务互斥（有幂等或数据端校验兜底） | 单实例或主从 + 哨兵，接受极小的窗口 | 窗口很小，漏过去的由数据自己的校验拦下：[` + "`guard-unique`" + `](guard-unique.md)、[` + "`guard-version`" + `](guard-version.md) |
| 涉及资金、库存等强正确性 | 锁只做优化，最终正确性靠数据：约束、版本号、由数据端校验的栅栏令牌 | 没有哪种租约锁扛得住停顿（[` + "`gc-pause`" + `](gc-pause.md)），Redlock 也扛不住重启（[` + "`redlock-restart`" + `](redlock-restart.md)、[` + "`redlock-fence`" + `](redlock-fence.md)） |

## 正确性场景：ZooKeeper 与 etcd

课程对 Redlock 辩论的结论：正确性场景应该用有栅栏令牌的系统——ZooKeeper 或 etcd——或者在资源端做防护。它们给了 Redis 给不了的东西：

- **共识**：一次写入要等集群的多数派都落盘才确认（Zab、Raft），重启的成员会从其他成员那里追上进度。异步复制下的主从切换（[` + "`failover`" + `](failover.md)）和无持久化重启（[` + "`redlock-restart`" + `](redlock-restart.md)）都不会丢锁。
- **天然的栅栏令牌**：每次变更都有一个只增不减的编号——ZooKeeper 的 zxid（锁节点的 czxid），etcd 的 revision（它的锁接口返回锁 key 的 revision）——整个集群只有这一个序列，而 Redlock 的计数器做不到（[` + "`redlock-fence`" + `](redlock-fence.md)）。
- **会话代替猜出来的租约**：ZooKeeper 的临时节点，或者挂在客户端持续续约的 lease 上的 etcd key，会随客户端的会话一起消失；等待者监听（watch）这个 key，会被通知，不用轮询（[` + "`retries`" + `](retries.md)）。

它们给不了的：停顿超过会话的客户端醒来时，照样以为自己持有锁。只有资源端对令牌的校验能拦住它的写入，就像 [` + "`gc-pause`" + `](gc-pause.md) 里的 ` + "`fenced`" + `。
`
