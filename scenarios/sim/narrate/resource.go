package narrate

import (
	"fmt"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// This file narrates the protected resource: a client's read, its write or
// sale, and why the store refuses one (a guard, a fencing token), in English
// and Chinese.

// Read says client c reads resource res = v, showing the store its
// fencing token fence (0: none); raised says the token is the highest the
// store has seen and above an earlier one, so that from now on it refuses
// the lower tokens it used to accept (issue #41
// item 7: a write refused for "token 1 < 2 already seen" before any write
// with token 2, the read that carried 2 not shown).
func Read(c, res string, v int, fence int64, raised bool) text.Text {
	t := text.Text{EN: fmt.Sprintf("%s reads %s = %d", c, res, v),
		ZH: fmt.Sprintf("%s 读取 %s = %d", c, res, v)}
	if fence <= 0 {
		return t
	}
	t.EN += fmt.Sprintf(" with fencing token %d", fence)
	t.ZH += fmt.Sprintf("（栅栏令牌 %d", fence)
	if raised {
		t.EN += fmt.Sprintf(": the store now refuses any write with a token below %d", fence)
		t.ZH += fmt.Sprintf("：资源端从此拒绝令牌小于 %d 的写入", fence)
	}
	t.ZH += "）"
	return t
}

// Stamp adds to a read, with GuardToken, the stamp of the reader's lock
// token on the row.
func Stamp(read text.Text, token string) text.Text {
	return text.Text{EN: read.EN + fmt.Sprintf(" and stamps the row with its lock token %s: only a write with that token will land", tokenName(token)),
		ZH: read.ZH + fmt.Sprintf("，并在这一行记下它的唯一标识 %s：只有带着这个标识的写入才会生效", tokenName(token))}
}

// tokenName is a lock token as the resource shows it: quoted, as SQL
// would have it; two quotes around nothing for a client that has none.
func tokenName(token string) string { return "'" + token + "'" }

// Write says what became of client c's write to resource res: r.
func Write(c, res string, r WriteResult) text.Text {
	switch r.Guard {
	case trace.GuardVersion:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: it read version %d, the row is at version %d now (UPDATE … WHERE version = %d matches no row)", c, res, r.Value, r.ReadVer, r.Version, r.ReadVer),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：它读到的是第 %d 版，现在已是第 %d 版（UPDATE … WHERE version = %d 一行也没有更新）", c, res, r.Value, r.ReadVer, r.Version, r.ReadVer),
		}
	case trace.GuardInStock:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the stock is already %d (UPDATE … WHERE stock > 0 matches no row)", c, res, r.Value, r.Stock),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：库存已经是 %d（UPDATE … WHERE stock > 0 一行也没有更新）", c, res, r.Value, r.Stock),
		}
	case trace.GuardRelative:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's sale: the stock is already %d (%s matches no row)", c, r.Stock, sqlRelative),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售：库存已经是 %d（%s 一行也没有更新）", c, r.Stock, sqlRelative),
		}
	case trace.GuardUnique:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's sale of unit #%d: an order for that unit exists already (unique key on product and unit)", c, r.Read),
			ZH: fmt.Sprintf("资源端拒绝了 %s 卖出第 %d 件：这一件的订单已经存在（商品与件号上的唯一约束）", c, r.Read),
		}
	case trace.GuardToken:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the row carries lock token %s, %s's is %s (UPDATE … WHERE lock_token = %s matches no row)", c, res, r.Value, tokenName(r.Owner), c, tokenName(r.Token), tokenName(r.Token)),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：这一行记着的唯一标识是 %s，%s 的是 %s（UPDATE … WHERE lock_token = %s 一行也没有更新）", c, res, r.Value, tokenName(r.Owner), c, tokenName(r.Token), tokenName(r.Token)),
		}
	}
	if r.Relative {
		return relative(c, res, r)
	}
	if r.Idempotent && !r.Rejected {
		return idempotent(c, res, r)
	}
	if r.Rejected {
		return text.Text{
			EN: fmt.Sprintf("the store rejects %s's write of %s = %d: fencing token %d < %d already seen", c, res, r.Value, r.Fence, r.MaxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：栅栏令牌 %d < 已见过的 %d", c, res, r.Value, r.Fence, r.MaxFence),
		}
	}
	en := fmt.Sprintf("%s writes %s = %d", c, res, r.Value)
	zh := fmt.Sprintf("%s 写入 %s = %d", c, res, r.Value)
	if r.Stamped {
		en += fmt.Sprintf(": the row carries lock token %s, the one %s shows", tokenName(r.Owner), c)
		zh += fmt.Sprintf("：这一行记着的唯一标识是 %s，正是 %s 出示的那个", tokenName(r.Owner), c)
	}
	if r.Fence > 0 {
		en += fmt.Sprintf(" with fencing token %d", r.Fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.Fence)
	}
	return text.Text{EN: en, ZH: zh}
}

// sqlRelative is GuardRelative's sale, as the narration quotes it.
const sqlRelative = "UPDATE … SET stock = stock - 1 WHERE stock > 0"

// relative is a sale with GuardRelative that no guard refused: a
// decrement of the stock as it is, which a fencing token may still refuse.
func relative(c, res string, r WriteResult) text.Text {
	if r.Rejected {
		return text.Text{
			EN: fmt.Sprintf("the store rejects %s's sale (%s): fencing token %d < %d already seen", c, sqlRelative, r.Fence, r.MaxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售（%s）：栅栏令牌 %d < 已见过的 %d", c, sqlRelative, r.Fence, r.MaxFence),
		}
	}
	en := fmt.Sprintf("%s sells one: %s takes %s from %d to %d", c, sqlRelative, res, r.Stock, r.Value)
	zh := fmt.Sprintf("%s 卖出一件：%s 把 %s 从 %d 减到 %d", c, sqlRelative, res, r.Stock, r.Value)
	if r.Read != r.Stock {
		en += fmt.Sprintf(" — the stock as it is now, not the %d %s read: no sale is lost", r.Read, c)
		zh += fmt.Sprintf("——减的是现在的库存，不是 %s 读到的 %d：没有丢失任何一次销售", c, r.Read)
	}
	if r.Fence > 0 {
		en += fmt.Sprintf(" (fencing token %d)", r.Fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.Fence)
	}
	return text.Text{EN: en, ZH: zh}
}

// idempotent is an idempotent job's write that landed: the first run's,
// or a run again that changes nothing.
func idempotent(c, res string, r WriteResult) text.Text {
	if r.Repeat {
		return text.Text{
			EN: fmt.Sprintf("%s runs the job again: order 8801 is recorded already, and %s stays %d (ON CONFLICT DO NOTHING). Nothing is lost; the work was done twice", c, res, r.Stock),
			ZH: fmt.Sprintf("%s 又执行了一遍这个任务：订单 8801 已经记过了，%s 仍为 %d（ON CONFLICT DO NOTHING）。什么都没丢，只是活干了两遍", c, res, r.Stock),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("%s runs the job: it records order 8801 under its idempotency key and %s = %d, the same whoever runs it", c, res, r.Value),
		ZH: fmt.Sprintf("%s 执行任务：以幂等键记下订单 8801，%s = %d，不管谁来执行结果都一样", c, res, r.Value),
	}
}

// SoldOut says client c read a stock of read: sold out, it writes nothing.
func SoldOut(c string, read int) text.Text {
	return text.Text{EN: fmt.Sprintf("%s read a stock of %d: sold out, it sells nothing and writes nothing", c, read),
		ZH: fmt.Sprintf("%s 读到的库存是 %d：已售罄，不卖也不写", c, read)}
}

// WriteResult says what happened to one write.
type WriteResult struct {
	Value    int
	Fence    int64
	MaxFence int64
	Rejected bool
	// Guard is the resource guard that refused the write ("" when it was
	// accepted, or refused for its fencing token).
	Guard      trace.Guard
	LostUpdate bool // accepted, but based on a read that another write had overtaken
	ReadVer    int
	Version    int
	// Read is the value the writer read; Initial the resource's value
	// before any write.
	Read, Initial int
	// Stock is the resource's value when the write came.
	Stock int
	// Since are the writers of the accepted writes after the read, in order.
	Since []string
	// Token is the writer's lock token and Owner the token the row carries;
	// Stamped says the row has them (GuardToken).
	Token, Owner string
	Stamped      bool
	// Relative says the write is a decrement of the stock as it is
	// (GuardRelative), not a value computed from the read.
	Relative bool
	// Idempotent says the write is an idempotent job's result
	// (GuardIdempotent); Repeat, that an earlier run had written it.
	Idempotent, Repeat bool
}
