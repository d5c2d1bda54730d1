package narrate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// This file holds the short labels: an event in a few words, in English and
// Chinese (Event.Short), for compact views such as a lane of the TUI's
// timeline: "SET NX → OK", "holds A#1", "released".

// ShortSlow is Slow in a few words.
func ShortSlow(d time.Duration) text.Text {
	if d == 0 {
		return text.Text{EN: "fast again", ZH: "恢复"}
	}
	return text.Text{EN: "slow +" + Secs(d), ZH: "变慢 +" + SecsZH(d)}
}

// Same is a label that reads the same in both languages.
func Same(s string) text.Text { return text.Text{EN: s, ZH: s} }

// ShortCommand is a command and its reply in a few words: "SET NX → OK",
// "EVAL release → 1", "GET → A#1".
func ShortCommand(cmd redis.Cmder, err error) string {
	if command.InBatch(cmd) {
		name := "EXEC"
		switch r := command.FormatReply(cmd, err); {
		case r == "(nil)":
			return name + " → nil" // a watched key changed: nothing ran
		case strings.HasPrefix(r, "(error) "):
			return name + " → ERR"
		}
		return name + " → OK"
	}
	args := command.Args(cmd)
	name := strings.ToUpper(args[0])
	switch name {
	case "SET":
		for _, a := range args[3:] {
			if strings.EqualFold(a, "nx") {
				name += " NX"
			}
		}
	case "EVAL", "EVALSHA":
		if len(args) > 1 && strings.HasPrefix(args[1], "-- ") {
			script, _, _ := strings.Cut(strings.TrimPrefix(args[1], "-- "), ":")
			name += " " + script
		}
	}
	reply := command.FormatReply(cmd, err)
	switch {
	case strings.HasPrefix(reply, "(integer) "):
		reply = strings.TrimPrefix(reply, "(integer) ")
	case reply == "(nil)":
		reply = "nil"
	case strings.HasPrefix(reply, "(error) "):
		reply = "ERR"
	default:
		if v, ok := command.StringReply(cmd); ok {
			reply = command.Cut(v, command.MaxValue) // a few words: no more of a value than a snapshot shows
		} else if u, err := strconv.Unquote(reply); err == nil {
			reply = u
		}
	}
	return name + " → " + reply
}

// ShortAcquired is Acquired in a few words: "holds A#1 ⚑3"; a read-write
// lock's reader, whose hold is shared, "holds A#1 (read)", as the client
// list says it. The token comes first: a narrow lane cuts the end.
func ShortAcquired(token string, fence int64, read bool) text.Text {
	t := text.Text{EN: "holds", ZH: "持有"}
	if token != "" {
		t.EN += " " + token
		t.ZH += " " + token
	}
	if fence > 0 {
		t.EN += fmt.Sprintf(" ⚑%d", fence)
		t.ZH += fmt.Sprintf(" ⚑%d", fence)
	}
	if read {
		t.EN += " (read)"
		t.ZH += "（读）"
	}
	return t
}

// ShortQuorum is Quorum in a few words: "3/5 OK: majority".
func ShortQuorum(ok, nodes int) text.Text {
	if ok >= nodes/2+1 {
		return text.Text{EN: fmt.Sprintf("%d/%d OK: majority", ok, nodes), ZH: fmt.Sprintf("%d/%d OK：多数派", ok, nodes)}
	}
	return text.Text{EN: fmt.Sprintf("%d/%d OK: no majority", ok, nodes), ZH: fmt.Sprintf("%d/%d OK：不到多数派", ok, nodes)}
}

// ShortRefused is Refused in a few words.
func ShortRefused(err error) text.Text {
	if err != nil {
		return text.Text{EN: "error", ZH: "出错"}
	}
	return text.Text{EN: "refused", ZH: "没抢到"}
}

// ShortReleased is Released in a few words.
func ShortReleased(err error, sent bool) text.Text {
	switch {
	case err == nil:
		return text.Text{EN: "released", ZH: "已释放"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return text.Text{EN: "nothing to release", ZH: "无锁可放"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return text.Text{EN: "not its own", ZH: "不是自己的锁"}
	default:
		return text.Text{EN: "release failed", ZH: "释放失败"}
	}
}

// ShortWrite is Write in a few words: "write 99", "−1 → 98".
func ShortWrite(r WriteResult) text.Text {
	switch {
	case r.Relative && r.Rejected:
		return text.Text{EN: "−1 ✗", ZH: "减 1 被拒"}
	case r.Relative:
		return text.Text{EN: fmt.Sprintf("−1 → %d", r.Value), ZH: fmt.Sprintf("减 1 → %d", r.Value)}
	case r.Repeat && !r.Rejected:
		return text.Text{EN: fmt.Sprintf("again: %d", r.Value), ZH: fmt.Sprintf("重复：%d", r.Value)}
	}
	if r.Rejected {
		return text.Text{EN: fmt.Sprintf("write %d ✗", r.Value), ZH: fmt.Sprintf("写 %d 被拒", r.Value)}
	}
	return text.Text{EN: fmt.Sprintf("write %d", r.Value), ZH: fmt.Sprintf("写 %d", r.Value)}
}
