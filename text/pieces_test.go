package text

import (
	"slices"
	"testing"
)

// A line may break at a space and next to a Chinese character, but not
// before closing punctuation, after opening punctuation, or inside a run of
// narrow characters (a flag, a key).
func TestPiecesBreakWhereALineMay(t *testing.T) {
	got := Pieces("A 释放锁（--impl lock:1）。ok")
	want := []Piece{{"A", false}, {"释", true}, {"放", false}, {"锁", false}, {"（--impl", false}, {"lock:1）。", true}, {"ok", false}}
	if !slices.Equal(got, want) {
		t.Errorf("Pieces = %+v, want %+v", got, want)
	}
}
