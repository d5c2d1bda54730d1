package invariant

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
)

// resource: the protected data never loses an update.
type resource struct{}

func init() { register(4, resource{}) }

func (resource) Info() Info {
	return Info{ID: Resource, Name: text.Text{EN: Resource, ZH: "资源"},
		Rule: text.Text{
			EN: "the protected data never loses an update (no oversell, no stale write accepted)",
			ZH: "受保护的数据不丢失更新（不超卖，不接受基于陈旧读数的写入）"}}
}

func (resource) New(Settings) Check { return resourceCheck{} }

// resourceCheck is judged after every write: a write accepted that was
// based on a read older than the last accepted write (a lost update)
// breaks it. With fencing the store rejects a write whose token is lower
// than the highest it has seen (resource.write).
type resourceCheck struct{}

// Observe implements Check.
func (resourceCheck) Observe(_ World, o Observation) []text.Text {
	if o.Kind != Write || !o.Write.LostUpdate {
		return nil
	}
	return []text.Text{textLostUpdate(o.Client.Name, o.Write)}
}

// textLostUpdate says what a write on a stale read did, in numbers: every
// accepted write is one sale, so after n sales the stock should be
// initial − n. The writes that landed after the read are the updates it
// overwrites: their writers are named.
func textLostUpdate(c string, r narrate.WriteResult) text.Text {
	sales := r.Version + 1
	lost := r.Value - (r.Initial - sales)
	since := r.Version - r.ReadVer
	var names []string
	for _, n := range r.Since {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	whoEN, whoZH := fmt.Sprintf("%d write%s landed since", since, narrate.Plural(since)), fmt.Sprintf("之后又有 %d 次写入", since)
	lostEN, lostZH := fmt.Sprintf("%d update%s lost", lost, narrate.Plural(lost)), fmt.Sprintf("丢失了 %d 次更新", lost)
	if len(names) > 0 {
		whoEN = fmt.Sprintf("since then %s wrote", narrate.AndList(names))
		whoZH = fmt.Sprintf("之后 %s 写入过", strings.Join(names, "、"))
		zh := strings.Join(names, "、")
		switch {
		case len(names) == 1 && lost == 1:
			lostEN, lostZH = names[0]+"'s update is lost", zh+" 的更新丢失了"
		case lost == len(names):
			lostEN, lostZH = "the updates of "+narrate.AndList(names)+" are lost", zh+" 的更新都丢失了"
		default:
			lostEN = fmt.Sprintf("%d update%s lost (by %s)", lost, narrate.Plural(lost), narrate.AndList(names))
			lostZH = fmt.Sprintf("%s 的 %d 次更新丢失了", zh, lost)
		}
	}
	return text.Text{
		EN: fmt.Sprintf("%s's write is based on a stale read (it read %d; %s): %d sale%s so far, yet the stock went %d → %d — %s",
			c, r.Read, whoEN, sales, narrate.Plural(sales), r.Initial, r.Value, lostEN),
		ZH: fmt.Sprintf("%s 的写入基于陈旧的读数（它读到 %d，%s）：已卖出 %d 件，库存却从 %d 变成 %d——%s（超卖）",
			c, r.Read, whoZH, sales, r.Initial, r.Value, lostZH),
	}
}
