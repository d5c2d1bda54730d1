package web

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
)

// traceElement is one embedded trace (a page for one run), bundle the
// gzipped array of a site's page.
var (
	traceElement = regexp.MustCompile(`<script type="application/json" class="lockstep-trace" data-impl="([^"]*)" data-snapshots="changes">([^<]*)</script>`)
	bundle       = regexp.MustCompile(`<script type="application/octet-stream" id="lockstep-traces" data-impls="([^"]*)" data-encoding="gzip\+base64" data-snapshots="changes">([^<]*)</script>`)
)

// EmbeddedTraces reads back the traces a page embeds, by implementation
// and in the page's order, each as the JSON play --format json writes
// (compact): what the page's player reads.
func EmbeddedTraces(page []byte) (map[string]json.RawMessage, []string, error) {
	out := map[string]json.RawMessage{}
	var order []string
	for _, m := range traceElement.FindAllSubmatch(page, -1) {
		name := html.UnescapeString(string(m[1]))
		tr, err := wholeTrace(m[2])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = tr
		order = append(order, name)
	}
	if m := bundle.FindSubmatch(page); m != nil {
		names := strings.Fields(html.UnescapeString(string(m[1])))
		data, err := inflate(m[2])
		if err != nil {
			return nil, nil, err
		}
		var traces []json.RawMessage
		if err := json.Unmarshal(data, &traces); err != nil {
			return nil, nil, err
		}
		if len(traces) != len(names) {
			return nil, nil, fmt.Errorf("%d traces for %d names", len(traces), len(names))
		}
		for i, name := range names {
			if out[name], err = wholeTrace(traces[i]); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		order = append(order, names...)
	}
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("the page embeds no trace")
	}
	return out, order, nil
}

func inflate(b64 []byte) ([]byte, error) {
	z, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(b64)))
	if err != nil {
		return nil, err
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
