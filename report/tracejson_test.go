package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/race"
)

// writes records the largest single write it was given.
type writes struct {
	bytes.Buffer
	largest int
}

func (w *writes) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// A trace's JSON is what encoding/json writes for it, byte for byte, and
// reaches the writer an event at a time: never the whole encoding at once,
// which for the widest lesson was 666 MB held twice (2.7 GB of RSS).
func TestTraceJSONIsStreamed(t *testing.T) {
	for i, r := range cells(t) {
		if !race.Sampled(i) {
			continue
		}
		want, err := json.MarshalIndent(r.Trace, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		var w writes
		if err := JSON(&w, r.Trace); err != nil {
			t.Fatal(err)
		}
		name := r.Scenario + " × " + r.Impl
		if !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("%s: JSON differs from encoding/json's (%d vs %d bytes)", name, w.Len(), len(want))
		}
		if len(want) > 2<<16 && w.largest > 1<<16 {
			t.Errorf("%s: a write of %d bytes of %d: the trace was encoded whole", name, w.largest, len(want))
		}
	}
}
