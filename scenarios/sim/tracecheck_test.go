package sim

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// fill sets every exported string in v to s, giving each slice two elements
// and each pointer a value, so that no field is left out.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), s)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(v.Index(i), s)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s)
	}
}

// strs calls f with the path and value of every string in v.
func strs(v reflect.Value, path string, f func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				strs(v.Field(i), path+"."+v.Type().Field(i).Name, f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			strs(v.Index(i), path+"[]", f)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			strs(v.Elem(), path, f)
		}
	}
}

// Clean leaves no control character in any string of a trace, a field
// added later included (issue "Hardening", item 5). A command's arguments
// keep their newlines and tabs: they carry Lua scripts, and only the JSON
// format, which escapes them, shows them.
func TestCleanReachesEveryString(t *testing.T) {
	const evil = "x\x1b[2J\x1b]0;pwned\x07\u009b\n\ty"
	var tr trace.Trace
	fill(reflect.ValueOf(&tr).Elem(), evil)
	tr.Clean()
	n := 0
	strs(reflect.ValueOf(&tr).Elem(), "trace", func(path, s string) {
		n++
		want := `x\x1b[2J\x1b]0;pwned\x07\u009b\x0a\x09y`
		if path == "trace.Events[].Args[]" {
			want = "x\\x1b[2J\\x1b]0;pwned\\x07\\u009b\n\ty"
		}
		if s != want {
			t.Errorf("%s = %q, want %q", path, s, want)
		}
	})
	if n < 40 {
		t.Errorf("only %d strings seen", n)
	}
	// Clean text stays as it is: cleaning twice changes nothing.
	before, _ := json.Marshal(&tr)
	tr.Clean()
	if after, _ := json.Marshal(&tr); string(after) != string(before) {
		t.Error("a second Clean changed the trace")
	}
}
