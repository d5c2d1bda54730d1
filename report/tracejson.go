package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// eventsField is where the events sit in a trace's indented JSON, written
// with none: top-level, so a string cannot hold it (its quotes would be
// escaped).
const eventsField = "\n  \"events\": [],\n"

// traceJSON writes a trace as JSON writes it indented, byte for byte, an
// event at a time: the widest lesson's trace is hundreds of megabytes of
// JSON, and encoding it whole held it twice beside the trace (the encoding,
// then its indented copy), 2.7 GB for 666 MB.
func traceJSON(w io.Writer, tr *trace.Trace) error {
	head := *tr
	head.Events = []trace.Event{}
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	before, after, ok := bytes.Cut(b, []byte(eventsField))
	if !ok {
		return fmt.Errorf("trace JSON without %q", eventsField)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(before)
	bw.WriteString("\n  \"events\": [\n")
	for i := range tr.Events {
		ev, err := json.MarshalIndent(&tr.Events[i], "    ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(ev)
		if i < len(tr.Events)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ],\n")
	bw.Write(after)
	bw.WriteByte('\n')
	return bw.Flush()
}
