package scenarios

// A lesson's header, before its first client: its id, titles, naive
// implementation and fix, and its world (the setup line).

import (
	"strconv"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// headerVerbs come before the timeline: who the lesson is and its world.
var headerVerbs = []string{"lesson", "title", "summary", "naive", "fix", "mitigation", "setup", "explore"}

func (p *lessonParser) headerVerb(l line) error {
	verb := l.fields[0]
	if p.seen[verb] {
		return p.errAt(l, 0, "%s given twice", verb)
	}
	p.seen[verb] = true
	switch verb {
	case "lesson":
		if len(l.fields) != 2 || !validID(l.fields[1]) {
			return p.errAt(l, min(1, len(l.fields)-1), "want \"lesson ID\", the id in lower case letters, digits and dashes (e.g. get-then-del), at most %d characters", MaxLessonID)
		}
		p.s.ID = l.fields[1]
	case "title", "summary":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "%s takes no arguments: the text goes on indented en and zh lines below", verb)
		}
		t, err := p.text(l)
		if err != nil {
			return err
		}
		if verb == "title" {
			p.s.Title = t
		} else {
			p.s.Summary = t
		}
	case "naive":
		if len(l.fields) != 2 {
			return p.errAt(l, 1, "want \"naive IMPL\": the implementation the lesson opens with")
		}
		if _, err := lockimpl.Lookup(l.fields[1]); err != nil {
			return p.errAt(l, 1, "%v", err)
		}
		p.s.Naive = l.fields[1]
	case "fix":
		if len(l.fields) != 2 {
			return p.errAt(l, min(1, len(l.fields)-1), "want \"fix IMPL\": the implementation that fixes this bug, set beside the naive one")
		}
		if _, err := lockimpl.Lookup(l.fields[1]); err != nil {
			return p.errAt(l, 1, "%v", err)
		}
		p.s.FixImpl = l.fields[1]
	case "mitigation":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "mitigation takes no arguments")
		}
		p.s.Mitigation = true
	case "setup":
		return p.setup(l)
	case "explore":
		return p.exploreLine(l)
	}
	return nil
}

func validID(id string) bool {
	if id == "" || id[0] == '-' || len(id) > MaxLessonID {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func (p *lessonParser) setup(l line) error {
	vals, at, err := p.args(l, 1, "key", "ttl", "replica", "lag", "down-after", "rejoin", "liveness", "horizon", "stock", "nodes", "guard", "cluster")
	if err != nil {
		return err
	}
	s := &p.s.Setup
	for k, v := range vals {
		f := at[k]
		switch k {
		case "key":
			if v == "" {
				return p.errAt(l, f, "want key=NAME")
			}
			if err := p.keyLength(l, f, v); err != nil {
				return err
			}
			s.Key = v
		case "replica", "rejoin", "cluster":
			if v != "" {
				return p.errAt(l, f, "%s is a flag: write it without a value", k)
			}
			s.Replica = s.Replica || k == "replica"
			s.Rejoin = s.Rejoin || k == "rejoin"
			s.Cluster = s.Cluster || k == "cluster"
		case "ttl", "lag", "down-after", "liveness", "horizon":
			d, err := p.duration(l, f, v)
			if err != nil {
				return err
			}
			if d == 0 && k != "lag" {
				return p.errAt(l, f, "%s must be more than 0", k)
			}
			switch k {
			case "ttl":
				if d < MinLessonTTL {
					return p.errAt(l, f, "ttl: %s is shorter than a lesson's shortest lease (%s)", v, dur(MinLessonTTL))
				}
				s.TTL = d
				p.ttlAt, p.ttlField = l, f
			case "lag":
				s.Lag = d
			case "down-after":
				s.DownAfter = d
			case "liveness":
				s.LivenessBound = d
			case "horizon":
				s.Horizon = d
			}
		case "guard":
			g, err := trace.ParseGuard(v)
			if err != nil {
				return p.errAt(l, f, "%v", err)
			}
			s.Guard = g
		case "stock", "nodes":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || k == "nodes" && (n < 3 || n%2 == 0 || n > 9) {
				want := "a whole number above 0"
				if k == "nodes" {
					want = "an odd number of servers from 3 to 9"
				}
				return p.errAt(l, f, "%s: want %s, got %q", k, want, v)
			}
			if k == "stock" {
				s.Stock = n
			} else {
				s.Nodes, p.nodes = n, n
			}
		}
	}
	if s.Rejoin && !s.Replica {
		return p.errAt(l, at["rejoin"], "rejoin brings a failed primary back as a replica: it needs replica too")
	}
	for _, k := range []string{"lag", "down-after"} {
		if _, ok := vals[k]; ok && !s.Replica {
			return p.errAt(l, at[k], "%s is the replica's: it needs replica too", k)
		}
	}
	return nil
}

// finishHeader checks the header is whole when the timeline begins at l.
func (p *lessonParser) finishHeader(l line) error {
	for _, want := range []string{"lesson", "title", "summary", "naive"} {
		if !p.seen[want] {
			return p.errAt(l, 0, "want %q before the timeline (a lesson begins with lesson, title, summary and naive)", want)
		}
	}
	return nil
}
