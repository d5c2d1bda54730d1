// Package text is lockstep's one way to say something in two languages:
// English and Chinese (简体中文). Every package may import it — lockimpl's
// registry, the engine's traces, the reports, the TUI and the CLI — so it
// imports nothing of lockstep.
package text

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// Text is a line in English and in Chinese (简体中文). Its JSON form, an
// object with "en" and "zh", is part of the trace format
// (docs/trace-schema.md).
type Text struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

// New is the Text en in English and zh in Chinese.
func New(en, zh string) Text { return Text{EN: en, ZH: zh} }

// Newf is the Text of two format strings, one per language, formatted with
// the same arguments.
func Newf(en, zh string, args ...any) Text {
	return Text{EN: fmt.Sprintf(en, args...), ZH: fmt.Sprintf(zh, args...)}
}

// In returns the text in lang ("zh" for Chinese, anything else English).
func (t Text) In(lang string) string {
	if lang == "zh" {
		return t.ZH
	}
	return t.EN
}

// Missing lists where v holds a Text with one language and not the other,
// as paths from name (name.Field[2].Key["k"]). It looks through exported
// struct fields, slices, arrays, maps, pointers and interfaces; a Text with
// neither language (an absent Short, say) is fine.
func Missing(name string, v any) []string {
	var out []string
	missing(reflect.ValueOf(v), name, map[uintptr]bool{}, &out)
	return out
}

var textType = reflect.TypeFor[Text]()

// missing walks v; seen holds the pointers already walked, so that a cycle
// ends.
func missing(v reflect.Value, path string, seen map[uintptr]bool, out *[]string) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == textType {
			switch en, zh := v.Field(0).String(), v.Field(1).String(); {
			case en == "" && zh != "":
				*out = append(*out, path+": no English")
			case en != "" && zh == "":
				*out = append(*out, path+": no Chinese")
			}
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				missing(v.Field(i), path+"."+f.Name, seen, out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			missing(v.Index(i), path+"["+strconv.Itoa(i)+"]", seen, out)
		}
	case reflect.Map:
		// In key order, so that the list is the same from run to run.
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
		})
		for _, k := range keys {
			missing(v.MapIndex(k), fmt.Sprintf("%s[%#v]", path, k), seen, out)
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		missing(v.Elem(), path, seen, out)
	case reflect.Interface:
		if !v.IsNil() {
			missing(v.Elem(), path, seen, out)
		}
	}
}
