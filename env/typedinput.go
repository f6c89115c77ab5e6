package env

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// Typed decodes a tool's input without encoding/json when the input type
// and the input are plain: a struct whose fields are strings, booleans,
// numbers, pointers to them or slices of them (no custom decoding, no
// embedded field, no string option), and an object whose keys name those
// fields exactly, each once, whose strings have no escapes and are valid UTF-8, and
// whose values fit their fields. That is what a tool's input nearly always
// is. Anything else (an unknown key, a key in other letters' case, a value
// of the wrong type, an escape, a null where encoding/json would keep the
// value, text after the object) is decoded by json.Decoder as before, so
// the values and the errors are encoding/json's.

// inputPlan decodes the input object into a struct of one type.
type inputPlan struct {
	fields []inputField
}

// inputField is one field of the struct; set is nil for a field whose
// type the plan leaves to encoding/json.
type inputField struct {
	name string
	off  uintptr
	set  setFunc
}

// setFunc decodes the JSON value tok into the field at p; false when it
// leaves the value to encoding/json.
type setFunc func(p unsafe.Pointer, tok []byte) bool

// planInput returns the plan of struct type t, or nil when t is not a
// struct or has a field the plan cannot stand for (embedded, with a
// custom decoding of itself).
func planInput(t reflect.Type) *inputPlan {
	if t.Kind() != reflect.Struct || customDecoding(t) {
		return nil
	}
	p := &inputPlan{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		name, options, ok := jsonName(f)
		if !ok {
			continue
		}
		if !validTagName(name) || seen[name] {
			return nil // a name encoding/json finds otherwise, or two fields it drops
		}
		seen[name] = true
		var set setFunc
		if options == "" || options == "omitempty" || options == "omitzero" {
			set = setterOf(f.Type)
		}
		p.fields = append(p.fields, inputField{name: name, off: f.Offset, set: set})
	}
	return p
}

// validTagName reports whether encoding/json takes name from a tag as it
// is (its isValidTag): otherwise it uses the field's Go name, which the
// plan does not try to follow.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func customDecoding(t reflect.Type) bool {
	for _, m := range []reflect.Type{jsonUnmarshaler, textUnmarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

var numberType = reflect.TypeFor[json.Number]()

// setterOf returns the setFunc of a field of type t, nil when the plan
// leaves t to encoding/json.
func setterOf(t reflect.Type) setFunc {
	if customDecoding(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		et := t.Elem()
		set := scalarSetter(et)
		if set == nil {
			return nil
		}
		return func(p unsafe.Pointer, tok []byte) bool {
			if string(tok) == "null" {
				*(*unsafe.Pointer)(p) = nil
				return true
			}
			q := reflect.New(et).UnsafePointer()
			if !set(q, tok) {
				return false
			}
			*(*unsafe.Pointer)(p) = q
			return true
		}
	case reflect.Slice:
		et := t.Elem()
		if et.Kind() == reflect.Uint8 {
			return nil // []byte is base64 text
		}
		set := scalarSetter(et)
		if set == nil {
			return nil
		}
		return func(p unsafe.Pointer, tok []byte) bool {
			if string(tok) == "null" {
				*(*sliceHeader)(p) = sliceHeader{}
				return true
			}
			n, ok := arrayLen(tok)
			if !ok {
				return false
			}
			var fresh sliceHeader
			s := reflect.NewAt(t, unsafe.Pointer(&fresh)).Elem()
			s.Set(reflect.MakeSlice(t, n, n))
			size := et.Size()
			i := 0
			ok = eachItem(tok, func(item []byte) bool {
				ok := set(unsafe.Add(fresh.data, uintptr(i)*size), item)
				i++
				return ok
			})
			if !ok {
				return false
			}
			*(*sliceHeader)(p) = fresh
			return true
		}
	}
	return scalarSetter(t)
}

// scalarSetter returns the setFunc of a string, boolean or number; nil for
// any other type. A null is left to encoding/json (which keeps the value).
func scalarSetter(t reflect.Type) setFunc {
	if customDecoding(t) || t == numberType {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer, tok []byte) bool {
			s, ok := plainString(tok)
			if ok {
				*(*string)(p) = s
			}
			return ok
		}
	case reflect.Bool:
		return func(p unsafe.Pointer, tok []byte) bool {
			switch string(tok) {
			case "true":
				*(*bool)(p) = true
			case "false":
				*(*bool)(p) = false
			default:
				return false
			}
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return numberSetterOf(t)
	}
	return nil
}

// numberSetterOf returns the setFunc of a number of t's kind and size, as
// encoding/json reads it: strconv's parse for the kind, in t's bits.
func numberSetterOf(t reflect.Type) setFunc {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		if bits == 32 {
			return numberSetter[float32](strconv.ParseFloat, bits)
		}
		return numberSetter[float64](strconv.ParseFloat, bits)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return sizedSetter[uint8, uint16, uint32, uint64](func(s string, bits int) (uint64, error) { return strconv.ParseUint(s, 10, bits) }, bits)
	}
	return sizedSetter[int8, int16, int32, int64](func(s string, bits int) (int64, error) { return strconv.ParseInt(s, 10, bits) }, bits)
}

// sizedSetter is the numberSetter of the integer type of that many bits.
func sizedSetter[T8, T16, T32, T64 integer, N int64 | uint64](parse func(string, int) (N, error), bits int) setFunc {
	switch bits {
	case 8:
		return numberSetter[T8](parse, bits)
	case 16:
		return numberSetter[T16](parse, bits)
	case 32:
		return numberSetter[T32](parse, bits)
	}
	return numberSetter[T64](parse, bits)
}

type integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// numberSetter sets a number of type T (or of a type of T's kind and
// size) to what parse reads from a JSON number in bits bits.
func numberSetter[T integer | float32 | float64, N int64 | uint64 | float64](parse func(string, int) (N, error), bits int) setFunc {
	return func(p unsafe.Pointer, tok []byte) bool {
		if !isNumber(tok) {
			return false
		}
		n, err := parse(string(tok), bits)
		if err != nil {
			return false
		}
		*(*T)(p) = T(n)
		return true
	}
}

// decode decodes data into the struct at p and reports whether it could;
// on false the struct may be half set and data is left to encoding/json.
func (pl *inputPlan) decode(data []byte, p unsafe.Pointer) bool {
	var seen uint64 // the fields set so far, by index
	i := jsontok.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = jsontok.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return jsontok.SkipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		keyEnd := plainStringEnd(data, i)
		if keyEnd < 0 {
			return false
		}
		key := data[i+1 : keyEnd-1]
		var field *inputField
		for k := range pl.fields {
			if pl.fields[k].name == string(key) {
				if k >= 64 || seen&(1<<k) != 0 {
					return false // a key given twice is left to encoding/json
				}
				seen |= 1 << k
				field = &pl.fields[k]
				break
			}
		}
		if field == nil || field.set == nil {
			return false
		}
		i = jsontok.SkipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = jsontok.SkipSpace(data, i+1)
		end := valueEnd(data, i)
		if end < 0 || !field.set(unsafe.Add(p, field.off), data[i:end]) {
			return false
		}
		i = jsontok.SkipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = jsontok.SkipSpace(data, i+1)
		case '}':
			return jsontok.SkipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// plainStringEnd returns the index after the string that starts at
// data[i], or -1 unless it is plain: no escape, no control character,
// valid UTF-8.
func plainStringEnd(data []byte, i int) int {
	ascii := true
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(data[i+1:j]) {
				return -1
			}
			return j + 1
		case c == '\\' || c < 0x20:
			return -1
		case c >= 0x80:
			ascii = false
		}
	}
	return -1
}

// plainString returns the text of tok when it is a plain string.
func plainString(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || plainStringEnd(tok, 0) != len(tok) {
		return "", false
	}
	return string(tok[1 : len(tok)-1]), true
}

// valueEnd returns the index after the plain value that starts at data[i]
// (a plain string, a literal, a number, or an array of those), or -1.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		return plainStringEnd(data, i)
	case c == '[':
		i = jsontok.SkipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i < len(data) && data[i] == '[' {
				return -1 // nested arrays are left to encoding/json
			}
			end := valueEnd(data, i)
			if end < 0 {
				return -1
			}
			i = jsontok.SkipSpace(data, end)
			if i >= len(data) {
				return -1
			}
			switch data[i] {
			case ',':
				i = jsontok.SkipSpace(data, i+1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		j := i
		for j < len(data) {
			switch c := data[j]; {
			case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
				j++
				continue
			}
			break
		}
		if !isNumber(data[i:j]) {
			return -1
		}
		return j
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
			return i + len(lit)
		}
	}
	return -1
}

// arrayLen returns the number of items of tok, an array valueEnd found.
func arrayLen(tok []byte) (int, bool) {
	if len(tok) < 2 || tok[0] != '[' {
		return 0, false
	}
	n := 0
	ok := eachItem(tok, func([]byte) bool { n++; return true })
	return n, ok
}

// eachItem calls f with each item of tok, an array valueEnd found, until
// f returns false.
func eachItem(tok []byte, f func(item []byte) bool) bool {
	i := jsontok.SkipSpace(tok, 1)
	if tok[i] == ']' {
		return true
	}
	for {
		end := valueEnd(tok, i)
		if end < 0 || !f(tok[i:end]) {
			return false
		}
		i = jsontok.SkipSpace(tok, end)
		if tok[i] == ']' {
			return true
		}
		i = jsontok.SkipSpace(tok, i+1)
	}
}

// isNumber reports whether tok is a JSON number.
func isNumber(tok []byte) bool { return len(tok) > 0 && jsontok.NumberEnd(tok, 0) == len(tok) }
