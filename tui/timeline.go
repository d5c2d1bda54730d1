package tui

// The player's timeline: a lane per client, server and the resource, a row
// per event, and the marks a server's column gets when its lanes are
// folded into one.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/text"
)

// lanes are the timeline's columns: clients, servers, the resource.
func lanes(tr *trace.Trace) []string {
	out := slices.Clone(tr.Clients)
	out = append(out, tr.Servers...)
	return append(out, "stock")
}

// serversLane is the one lane that stands for every server when there are
// too many for a lane each (Redlock at 80 columns): a column per server,
// headed by its number, with a one-character mark for what the event did
// there (the help's legend lists them).
const serversLane = "redis"

// minLaneW is the narrowest lane that still shows a command and its reply.
const minLaneW = 12

// timeline draws the lane header and rows events, the current one marked.
func (p playerView) timeline(st Styles, lang string, w, rows int) []string {
	ls := lanes(p.tr)
	const gutter, timeW = 2, 7
	lw := (w - gutter - timeW - len(ls)) / len(ls)
	compact := len(p.tr.Servers) > 2 && lw < minLaneW
	srvW := 0
	if compact {
		ls = append(append(slices.Clone(p.tr.Clients), serversLane), "stock")
		srvW = len(serversLane) + 2*len(p.tr.Servers)
		lw = (w - gutter - timeW - len(ls) - srvW) / (len(ls) - 1)
	}
	width := func(l string) int {
		if l == serversLane && compact {
			return srvW
		}
		return lw
	}
	hdr := strings.Repeat(" ", gutter) + fit(text.New("t", "时间").In(lang), timeW)
	for _, l := range ls {
		name := l
		if l == serversLane && compact {
			name = serversLane
			for j := range p.tr.Servers {
				name += fmt.Sprintf(" %d", j+1)
			}
		}
		if l == "stock" {
			name = text.New("stock", "库存").In(lang)
		}
		hdr += "│" + fit(name, width(l))
	}
	out := []string{st.Header.Render(fit(hdr, w))}
	rows--
	first := max(0, min(p.step-rows*2/3, len(p.tr.Events)-rows))
	for i := first; i < min(first+rows, len(p.tr.Events)); i++ {
		if p.noSpoilers && i > p.step {
			break // what comes next is the class's to guess
		}
		e := p.tr.Events[i]
		mark := "  "
		if i == p.step {
			mark = "▶ "
		}
		line := mark + fit(fmt.Sprintf("%6.1f", e.T.Seconds()), timeW)
		style := st.Narration
		switch e.Kind {
		case trace.KindNarration:
			line += "» " + e.Text.In(lang)
			style = st.Dim
		case trace.KindViolation:
			line += "✗ " + e.Text.In(lang)
			style = st.Bad
		default:
			cells := laneCells(p.tr, i, lang)
			if compact {
				cells[serversLane] = serverMarks(p.tr, i, cells)
			}
			for _, l := range ls {
				line += "│" + fit(cells[l], width(l))
			}
			if e.Kind == trace.KindFault || e.Kind == trace.KindSchedule {
				style = st.Warn
			}
		}
		line = fit(line, w)
		if i == p.step {
			style = st.Current
		}
		out = append(out, style.Render(line))
	}
	for len(out) < rows+1 {
		out = append(out, "")
	}
	return out
}

// serverMarks is the compact servers lane for event i: under each server's
// number, a mark for what happened there.
func serverMarks(t *trace.Trace, i int, cells map[string]string) string {
	e := t.Events[i]
	row := []rune(strings.Repeat(" ", len(serversLane)+2*len(t.Servers)))
	for j, srv := range t.Servers {
		if e.Server != srv {
			continue
		}
		mark := '∅' // a command that changed nothing: refused
		switch c := []rune(cells[srv]); {
		case e.Kind == trace.KindExpire:
			mark = '○'
		case e.Kind == trace.KindFault:
			mark = '!'
		case e.Kind == trace.KindSchedule:
			mark = '~' // on its way to a slow server
		case e.Kind == trace.KindCommand && len(c) > 0 && strings.ContainsRune("+−=⟳", c[0]):
			mark = c[0]
		case e.Kind == trace.KindCommand && strings.HasPrefix(e.Reply, "(error)"):
			mark = '✗'
		}
		row[len(serversLane)+2*j+1] = mark
	}
	return string(row)
}

// laneCells says what each lane shows for event i: the actor's label in its
// client's lane, the effect on the lock in the server's lane, the stock in
// the resource's.
func laneCells(t *trace.Trace, i int, lang string) map[string]string {
	e := t.Events[i]
	cells := map[string]string{}
	actor, bg, _ := trace.SplitActor(e.Actor)
	short := e.Short.In(lang)
	if bg {
		short = "⟳ " + short
	}
	switch e.Kind {
	case trace.KindExpire, trace.KindReplicate:
		cells[e.Server] = short
	case trace.KindFault:
		if e.Actor != "" {
			cells[actor] = short
		} else {
			cells[e.Server] = short
		}
	case trace.KindCommand:
		cells[actor] = short
		cells[e.Server] = effect(t, i, e.Server)
	case trace.KindResource:
		cells[actor] = short
		if i > 0 {
			if c := stockCell(t.Events[i-1].Snap.Resource, e.Snap.Resource, lang); c != "" {
				cells["stock"] = c
			}
		}
	default:
		if actor != "" {
			cells[actor] = short
		}
	}
	return cells
}

// stockCell is what the stock lane shows for a resource event that took
// the resource from before to after: the new value of a write that landed;
// for one the store refused, that the value stays, so that "= 99" beside
// "write 99 ✗" does not read as if the write landed (issue #41 item 15);
// nothing for a read.
func stockCell(before, after trace.ResourceState, lang string) string {
	switch {
	case after.Value != before.Value || after.Version != before.Version:
		return fmt.Sprintf("= %d", after.Value)
	case after.Rejected > before.Rejected:
		return text.New(fmt.Sprintf("stays %d", after.Value), fmt.Sprintf("仍为 %d", after.Value)).In(lang)
	}
	return ""
}

// effect describes what command event i did to the lock key on server.
func effect(t *trace.Trace, i int, server string) string {
	after, okA := lockKey(t.Events[i].Snap, server, t.Key)
	if i == 0 {
		if okA {
			return "+ " + after.Value
		}
		return ""
	}
	before, okB := lockKey(t.Events[i-1].Snap, server, t.Key)
	// The lease has run down since the previous event; only a TTL above
	// that is a renewal.
	left := before.TTL - (t.Events[i].T - t.Events[i-1].T)
	switch {
	case okA && !okB:
		return "+ " + after.Value
	case !okA && okB:
		return "− " + before.Value
	case !okA:
		return ""
	case after.Value != before.Value:
		return "= " + after.Value
	case before.TTL > 0 && after.TTL > left+t.TTL/10: // beyond a real server's jitter
		return "⟳ " + after.Value
	case before.TTL < 0 && after.TTL > 0:
		return "ttl " + ttlText(after)
	}
	return ""
}
