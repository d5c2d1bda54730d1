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
)

// traceElement is one embedded trace: its attributes and its content.
var traceElement = regexp.MustCompile(`<script type="[^"]*" class="lockstep-trace" data-impl="([^"]*)"( data-encoding="gzip\+base64")?>([^<]*)</script>`)

// EmbeddedTraces reads back the traces a page embeds, in its order, each
// as the JSON play --format json writes (compact): what the page's player
// reads.
func EmbeddedTraces(page []byte) (map[string]json.RawMessage, []string, error) {
	out := map[string]json.RawMessage{}
	var order []string
	for _, m := range traceElement.FindAllSubmatch(page, -1) {
		name := html.UnescapeString(string(m[1]))
		data := m[3]
		if len(m[2]) > 0 {
			var err error
			if data, err = inflate(data); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if !json.Valid(data) {
			return nil, nil, fmt.Errorf("%s: not JSON", name)
		}
		out[name] = data
		order = append(order, name)
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
