package sim

import (
	"fmt"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file narrates the protected resource: a client's read, its write or
// sale, and why the store refuses one (a guard, a fencing token), in English
// and Chinese.

func textRead(c, res string, v int) text.Text {
	return text.Text{EN: fmt.Sprintf("%s reads %s = %d", c, res, v),
		ZH: fmt.Sprintf("%s 读取 %s = %d", c, res, v)}
}

// textStamp adds to a read, with GuardToken, the stamp of the reader's lock
// token on the row.
func textStamp(read text.Text, token string) text.Text {
	return text.Text{EN: read.EN + fmt.Sprintf(" and stamps the row with its lock token %s: only a write with that token will land", tokenName(token)),
		ZH: read.ZH + fmt.Sprintf("，并在这一行记下它的唯一标识 %s：只有带着这个标识的写入才会生效", tokenName(token))}
}

// tokenName is a lock token as the resource shows it: quoted, as SQL
// would have it; two quotes around nothing for a client that has none.
func tokenName(token string) string { return "'" + token + "'" }

func textWrite(c, res string, r writeResult) text.Text {
	switch r.guard {
	case trace.GuardVersion:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: it read version %d, the row is at version %d now (UPDATE … WHERE version = %d matches no row)", c, res, r.value, r.readVer, r.version, r.readVer),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：它读到的是第 %d 版，现在已是第 %d 版（UPDATE … WHERE version = %d 一行也没有更新）", c, res, r.value, r.readVer, r.version, r.readVer),
		}
	case trace.GuardInStock:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the stock is already %d (UPDATE … WHERE stock > 0 matches no row)", c, res, r.value, r.stock),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：库存已经是 %d（UPDATE … WHERE stock > 0 一行也没有更新）", c, res, r.value, r.stock),
		}
	case trace.GuardRelative:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's sale: the stock is already %d (%s matches no row)", c, r.stock, sqlRelative),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售：库存已经是 %d（%s 一行也没有更新）", c, r.stock, sqlRelative),
		}
	case trace.GuardUnique:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's sale of unit #%d: an order for that unit exists already (unique key on product and unit)", c, r.read),
			ZH: fmt.Sprintf("资源端拒绝了 %s 卖出第 %d 件：这一件的订单已经存在（商品与件号上的唯一约束）", c, r.read),
		}
	case trace.GuardToken:
		return text.Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the row carries lock token %s, %s's is %s (UPDATE … WHERE lock_token = %s matches no row)", c, res, r.value, tokenName(r.owner), c, tokenName(r.token), tokenName(r.token)),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：这一行记着的唯一标识是 %s，%s 的是 %s（UPDATE … WHERE lock_token = %s 一行也没有更新）", c, res, r.value, tokenName(r.owner), c, tokenName(r.token), tokenName(r.token)),
		}
	}
	if r.relative {
		return textRelative(c, res, r)
	}
	if r.rejected {
		return text.Text{
			EN: fmt.Sprintf("the store rejects %s's write of %s = %d: fencing token %d < %d already seen", c, res, r.value, r.fence, r.maxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：栅栏令牌 %d < 已见过的 %d", c, res, r.value, r.fence, r.maxFence),
		}
	}
	en := fmt.Sprintf("%s writes %s = %d", c, res, r.value)
	zh := fmt.Sprintf("%s 写入 %s = %d", c, res, r.value)
	if r.stamped {
		en += fmt.Sprintf(": the row carries lock token %s, the one %s shows", tokenName(r.owner), c)
		zh += fmt.Sprintf("：这一行记着的唯一标识是 %s，正是 %s 出示的那个", tokenName(r.owner), c)
	}
	if r.fence > 0 {
		en += fmt.Sprintf(" with fencing token %d", r.fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.fence)
	}
	return text.Text{EN: en, ZH: zh}
}

// sqlRelative is GuardRelative's sale, as the narration quotes it.
const sqlRelative = "UPDATE … SET stock = stock - 1 WHERE stock > 0"

// textRelative is a sale with GuardRelative that no guard refused: a
// decrement of the stock as it is, which a fencing token may still refuse.
func textRelative(c, res string, r writeResult) text.Text {
	if r.rejected {
		return text.Text{
			EN: fmt.Sprintf("the store rejects %s's sale (%s): fencing token %d < %d already seen", c, sqlRelative, r.fence, r.maxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售（%s）：栅栏令牌 %d < 已见过的 %d", c, sqlRelative, r.fence, r.maxFence),
		}
	}
	en := fmt.Sprintf("%s sells one: %s takes %s from %d to %d", c, sqlRelative, res, r.stock, r.value)
	zh := fmt.Sprintf("%s 卖出一件：%s 把 %s 从 %d 减到 %d", c, sqlRelative, res, r.stock, r.value)
	if r.read != r.stock {
		en += fmt.Sprintf(" — the stock as it is now, not the %d %s read: no sale is lost", r.read, c)
		zh += fmt.Sprintf("——减的是现在的库存，不是 %s 读到的 %d：没有丢失任何一次销售", c, r.read)
	}
	if r.fence > 0 {
		en += fmt.Sprintf(" (fencing token %d)", r.fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.fence)
	}
	return text.Text{EN: en, ZH: zh}
}

func textSoldOut(c string, read int) text.Text {
	return text.Text{EN: fmt.Sprintf("%s read a stock of %d: sold out, it sells nothing and writes nothing", c, read),
		ZH: fmt.Sprintf("%s 读到的库存是 %d：已售罄，不卖也不写", c, read)}
}
