package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// decodeTrace decodes a trace file as json.Unmarshal does, but its events
// one at a time as they are read: the file's bytes are not held beside the
// trace they make. The widest lesson with keys of 128 characters writes
// 666 MB of JSON; read whole and then decoded it took 1.49 GB.
//
// The header's fields (everything but "events", matched as Unmarshal
// matches a name, case aside) are decoded together once the object ends,
// so a later field overrides an earlier one as it does in Unmarshal.
func decodeTrace(r io.Reader) (*trace.Trace, error) {
	dec := json.NewDecoder(r)
	if err := delim(dec, '{'); err != nil {
		return nil, err
	}
	var header bytes.Buffer
	header.WriteByte('{')
	var events []trace.Event
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if strings.EqualFold(name, "events") {
			if events, err = decodeEvents(dec); err != nil {
				return nil, err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		quoted, _ := json.Marshal(name)
		if header.Len() > 1 {
			header.WriteByte(',')
		}
		header.Write(quoted)
		header.WriteByte(':')
		header.Write(raw)
	}
	if err := delim(dec, '}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	header.WriteByte('}')
	var tr trace.Trace
	if err := json.Unmarshal(header.Bytes(), &tr); err != nil {
		return nil, err
	}
	tr.Events = events
	return &tr, nil
}

// decodeEvents decodes the events array (or null) an event at a time.
func decodeEvents(dec *json.Decoder) ([]trace.Event, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, fmt.Errorf("events: %v is not an array", tok)
	}
	var events []trace.Event
	for dec.More() {
		var e trace.Event
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("events[%d]: %w", len(events), err)
		}
		events = append(events, e)
	}
	return events, delim(dec, ']')
}

// delim reads the delimiter want.
func delim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("%v where %v was expected", tok, want)
	}
	return nil
}
