// Package web writes lockstep's lessons for a browser: the player page, one
// self-contained HTML file that steps through traces as the TUI's player
// does (play --format html), and the whole course as a static site
// (lockstep site DIR).
//
// The page reads the traces as play --format json writes them (the one trace
// format of both players, docs/trace-schema.md), each event's snapshot
// holding only what changed since the previous event's (changes.go): a
// page for one run embeds its JSON as it is, up to a mebibyte; a site's
// lesson page, which holds every implementation's run, and a longer run's
// page embed them as one JSON array, gzipped (the runs of one timeline
// have much in common) and base64-encoded, and the browser inflates it. A
// page embeds at most MaxPageJSON. The player's script and styles
// (player.js, player.css) are inline; nothing is fetched from the network,
// and the page opens from file://.
package web

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

var (
	//go:embed player.html
	playerHTML string
	//go:embed player.js
	playerJS string
	//go:embed player.css
	playerCSS string
)

// Encoding is how a page embeds its traces.
type Encoding int

const (
	// Plain embeds each trace's JSON as it is: a page for one run. Beyond
	// a mebibyte of JSON it embeds them as Gzip does.
	Plain Encoding = iota
	// Gzip embeds the traces as one JSON array, gzipped, in base64: a
	// site's lesson page, with every implementation's run.
	Gzip
)

// Player is one player page: traces of one timeline, the first one open.
type Player struct {
	Traces []*trace.Trace
	// Lang is the language the page opens in ("en" or "zh"); the reader
	// switches.
	Lang     string
	Encoding Encoding
	// Index, when set, is the relative link back to a site's index.
	Index string
	// Prev and Next, when set, are the lessons before and after this one
	// on a site: their ids, and their pages' names with .html.
	Prev, Next string
	// Step is where the page opens when its address names no step.
	Step int
}

// meta is what the page knows beside the traces.
type meta struct {
	Lang       string            `json:"lang"`
	Scenario   string            `json:"scenario"`
	Title      text.Text         `json:"title"`
	Summary    text.Text         `json:"summary"`
	Story      storyHTML         `json:"story"`
	Impls      []implMeta        `json:"impls"`
	Partners   map[string]string `json:"partners"`
	Invariants []invMeta         `json:"invariants"`
	Index      string            `json:"index,omitempty"`
	Prev       string            `json:"prev,omitempty"`
	Next       string            `json:"next,omitempty"`
	Step       int               `json:"step"`
}

// storyHTML is a lesson's story as HTML, in both languages.
type storyHTML struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

type implMeta struct {
	Name    string    `json:"name"`
	Summary text.Text `json:"summary"`
	// Broken are the invariants its run breaks.
	Broken []string `json:"broken"`
}

type invMeta struct {
	ID   string    `json:"id"`
	Name text.Text `json:"name"`
	Rule text.Text `json:"rule"`
}

// Write writes the page.
func (p Player) Write(w io.Writer) error {
	if len(p.Traces) == 0 {
		return fmt.Errorf("web: a player page needs a trace")
	}
	m := p.meta()
	mj, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var data strings.Builder
	fmt.Fprintf(&data, "<script type=\"application/json\" id=\"lockstep-meta\">%s</script>\n", mj)
	if err := p.embed(&data); err != nil {
		return err
	}
	first := p.Traces[0]
	title := first.Scenario + " × " + first.Impl + " — " + first.Title.In(m.Lang) + " — lockstep"
	_, err = io.WriteString(w, fill(title, m.Lang, data.String()))
	return err
}

// fill puts the title, the language, the styles, the data and the script
// into the page's skeleton.
func fill(title, lang, data string) string {
	return strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(title),
		"{{LANG}}", htmlLang(lang),
		"{{CSS}}", playerCSS,
		"{{DATA}}", data,
		"{{JS}}", playerJS,
	).Replace(playerHTML)
}

// htmlLang is the page's lang attribute.
func htmlLang(lang string) string {
	if lang == "zh" {
		return "zh-Hans"
	}
	return "en"
}

// MaxPageJSON is the most a player page embeds of traces, in bytes of
// their JSON as the page holds it (snapshots as changes, before gzip).
// Within it the page stays light in a browser: headless Chromium takes
// about 0.8 GB at the bound, whatever the events (a few hundred thousand
// small ones, or 28,000 whose every snapshot changes on nine servers); the
// widest lesson the limits allow makes a page of 36 MB, its run and its
// fix's (docs/trace-schema.md, "In a player page"). Beyond, Write writes
// nothing and returns a *TooLargeError.
const MaxPageJSON = 64 << 20

// plainMax is the most trace JSON a Plain page embeds as it is: more is
// gzipped, as Gzip's is (the widest lesson's page, 36 MB as JSON, is
// 1.6 MB gzipped).
const plainMax = 1 << 20

// TooLargeError is Write's error for traces beyond MaxPageJSON.
type TooLargeError struct {
	// Bytes is how much the page would have embedded, Runs and Events how
	// many traces and events.
	Bytes, Runs, Events int
}

func (e *TooLargeError) Error() string {
	runs := "this run"
	if e.Runs > 1 {
		runs = fmt.Sprintf("these %d runs", e.Runs)
	}
	return fmt.Sprintf("a player page holds at most %d MiB of trace JSON; %s, %d events, would take %.1f MiB",
		MaxPageJSON>>20, runs, e.Events, float64(e.Bytes)/(1<<20))
}

// embed writes the traces as data elements: each its JSON, or all of
// them gzipped (Gzip, or beyond plainMax). JSON's encoder escapes <, >
// and &, so no string of a trace can close its element.
func (p Player) embed(w io.Writer) error {
	var all [][]byte
	size, events := 0, 0
	for _, tr := range p.Traces {
		b, err := json.Marshal(asChanges(tr))
		if err != nil {
			return err
		}
		all = append(all, b)
		size += len(b)
		events += len(tr.Events)
	}
	if size > MaxPageJSON {
		return &TooLargeError{Bytes: size, Runs: len(p.Traces), Events: events}
	}
	if p.Encoding == Gzip || size > plainMax {
		return p.embedGzip(w, all)
	}
	for i, tr := range p.Traces {
		if _, err := fmt.Fprintf(w, "<script type=\"application/json\" class=\"lockstep-trace\" data-impl=\"%s\" data-snapshots=\"changes\">%s</script>\n",
			html.EscapeString(tr.Impl), all[i]); err != nil {
			return err
		}
	}
	return nil
}

// embedGzip writes the traces (their JSON, in order) as one gzipped
// array; data-impls names them, in order.
func (p Player) embedGzip(w io.Writer, traces [][]byte) error {
	b := append(append([]byte("["), bytes.Join(traces, []byte(","))...), ']')
	z, err := gzipped(b)
	if err != nil {
		return err
	}
	var names []string
	for _, tr := range p.Traces {
		names = append(names, tr.Impl)
	}
	_, err = fmt.Fprintf(w, "<script type=\"application/octet-stream\" id=\"lockstep-traces\" data-impls=\"%s\" data-encoding=\"gzip+base64\" data-snapshots=\"changes\">%s</script>\n",
		html.EscapeString(strings.Join(names, " ")), base64.StdEncoding.EncodeToString(z))
	return err
}

func gzipped(b []byte) ([]byte, error) {
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// meta gathers what the page shows beside the traces: the lesson, when it
// is a built-in one, the implementations and the invariants.
func (p Player) meta() meta {
	first := p.Traces[0]
	m := meta{Lang: p.Lang, Scenario: first.Scenario, Title: first.Title, Index: p.Index,
		Prev: p.Prev, Next: p.Next, Step: p.Step, Partners: map[string]string{}}
	if m.Lang != "zh" {
		m.Lang = "en"
	}
	s, err := scenarios.Lookup(first.Scenario)
	known := err == nil
	if known {
		m.Summary = s.Summary
		m.Story = storyHTML{EN: Markdown(s.Story.EN, nil), ZH: Markdown(s.Story.ZH, nil)}
	}
	for _, tr := range p.Traces {
		im := implMeta{Name: tr.Impl, Broken: tr.Broken()}
		if info, err := lockimpl.Lookup(tr.Impl); err == nil && !tr.External {
			im.Summary = info.Summary
		}
		m.Impls = append(m.Impls, im)
		m.Partners[tr.Impl] = partner(s, known, tr.Impl, p.Traces)
	}
	for _, inv := range invariant.Infos() {
		m.Invariants = append(m.Invariants, invMeta{ID: inv.ID, Name: invariant.NameOf(inv.ID), Rule: inv.Rule})
	}
	return m
}

// partner is the implementation compare mode sets beside impl: the
// lesson's fix, as in the TUI, when the page holds it; else the next trace
// the page holds; "" when it holds one.
func partner(s scenarios.Scenario, known bool, impl string, traces []*trace.Trace) string {
	if len(traces) < 2 {
		return ""
	}
	if known {
		fix := s.Fix(impl)
		for _, tr := range traces {
			if tr.Impl == fix && fix != impl {
				return fix
			}
		}
	}
	for i, tr := range traces {
		if tr.Impl == impl {
			return traces[(i+1)%len(traces)].Impl
		}
	}
	return traces[0].Impl
}
