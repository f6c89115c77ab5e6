package canon

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Values of plain types are written without encoding/json, by encoders
// built once per type that read the value's memory: booleans, numbers,
// strings, pointers, slices, arrays, maps with string keys, interfaces
// holding such values, structs without embedded fields whose tags use no
// option but omitempty, and json.RawMessage and Compacted. The bytes are
// those Compact writes through encoding/json; a value of any other type,
// or one encoding/json refuses (NaN, an invalid json.Number or
// RawMessage), anywhere inside, makes appendTyped give up, and the whole
// value goes to encoding/json, which writes it or says why it cannot.

// typedFunc appends the JSON of the value at p, or reports false.
type typedFunc func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool)

// maxTypedDepth bounds the steps appendTyped follows into a value, from
// the artifacts' limit: a level of JSON nesting is two steps here (the
// array or object, and the interface or pointer that holds it), and a
// value nested deeper than an artifact may be is left to encoding/json, as
// is a deeper chain of pointers or a cycle. The bytes are encoding/json's
// either way; the bound only says which writes them.
const maxTypedDepth = 2 * safeio.MaxDepth

// typedEncoder writes values of one type, with a function built on first
// use, so that a recursive type finds its own encoder while it is built.
type typedEncoder struct {
	typedKey
	once sync.Once
	fn   typedFunc // nil: the type is left to encoding/json
}

// typedKey is a type and a way of writing it: as Compact writes it, or,
// html set, as json.Marshal does (HTML characters, U+2028, U+2029 and
// invalid UTF-8 escaped, json.RawMessage compacted and escaped alike).
type typedKey struct {
	t    reflect.Type
	html bool
}

var typedEncoders sync.Map // typedKey → *typedEncoder

func typedEncoderOf(t reflect.Type, html bool) *typedEncoder {
	k := typedKey{t, html}
	if e, ok := typedEncoders.Load(k); ok {
		return e.(*typedEncoder)
	}
	e, _ := typedEncoders.LoadOrStore(k, &typedEncoder{typedKey: k})
	return e.(*typedEncoder)
}

func (e *typedEncoder) get() typedFunc {
	e.once.Do(func() { e.fn = buildTyped(e.t, e.html) })
	return e.fn
}

func (e *typedEncoder) append(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
	fn := e.get()
	if fn == nil || depth > maxTypedDepth {
		return dst, false
	}
	return fn(dst, p, depth)
}

// appendTyped appends the JSON of v as Compact writes it, or reports
// false with dst as it was.
func appendTyped(dst []byte, v any) ([]byte, bool) {
	out, ok := appendInterface(dst, &v, 0, false)
	if !ok {
		return dst, false
	}
	return out, true
}

// AppendMarshal appends what json.Marshal gives for v, when v is of a type
// the typed encoders write (see appendTyped); otherwise, or when
// json.Marshal would fail, it reports false with dst as it was.
func AppendMarshal(dst []byte, v any) ([]byte, bool) {
	out, ok := appendInterface(dst, &v, 0, true)
	if !ok {
		return dst, false
	}
	return out, true
}

// appendInterface appends the JSON of the value the interface at x holds.
func appendInterface(dst []byte, x *any, depth int, html bool) ([]byte, bool) {
	if *x == nil {
		return append(dst, "null"...), true
	}
	t := reflect.TypeOf(*x)
	e := typedEncoderOf(t, html)
	if e.get() == nil {
		return dst, false
	}
	// the interface's data word is the value itself for a pointer-shaped
	// type, and points to it for any other
	data := (*[2]unsafe.Pointer)(unsafe.Pointer(x))[1]
	switch t.Kind() {
	case reflect.Pointer:
		if data == nil {
			return append(dst, "null"...), true
		}
		return typedEncoderOf(t.Elem(), html).append(dst, data, depth+1)
	case reflect.Map:
		if depth > maxTypedDepth {
			return dst, false
		}
		return appendMapValue(dst, reflect.ValueOf(*x), typedEncoderOf(t.Elem(), html), depth, html)
	case reflect.Struct, reflect.Array:
		if t.Size() == unsafe.Sizeof(data) {
			// it may be pointer-shaped: read it through reflect
			c := reflect.New(t)
			c.Elem().Set(reflect.ValueOf(*x))
			return e.append(dst, c.UnsafePointer(), depth)
		}
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return dst, false
	}
	return e.append(dst, data, depth)
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	compactedType = reflect.TypeFor[Compacted]()
	numberType    = reflect.TypeFor[json.Number]()
)

func customEncoding(t reflect.Type) bool {
	for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

func buildTyped(t reflect.Type, html bool) typedFunc {
	if t == rawType || t == compactedType {
		if html {
			return appendRawHTML
		}
		return appendRaw
	}
	if t == numberType {
		return appendNumber
	}
	if customEncoding(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
			return strconv.AppendBool(dst, *(*bool)(p)), true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return integerFunc[int8, int16, int32, int64](t.Size())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return integerFunc[uint8, uint16, uint32, uint64](t.Size())
	case reflect.Float32:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
			return appendFloat(dst, float64(*(*float32)(p)), 32)
		}
	case reflect.Float64:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
			return appendFloat(dst, *(*float64)(p), 64)
		}
	case reflect.String:
		if html {
			return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
				return appendStringHTML(dst, *(*string)(p)), true
			}
		}
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
			return appendString(dst, *(*string)(p)), true
		}
	case reflect.Interface:
		methods := t.NumMethod() > 0
		return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
			if methods {
				x := reflect.NewAt(t, p).Elem()
				if x.IsNil() {
					return append(dst, "null"...), true
				}
				v := x.Interface() // the dynamic value, as an empty interface
				return appendInterface(dst, &v, depth+1, html)
			}
			return appendInterface(dst, (*any)(p), depth+1, html)
		}
	case reflect.Pointer:
		elem := typedEncoderOf(t.Elem(), html)
		return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				return append(dst, "null"...), true
			}
			return elem.append(dst, q, depth+1)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64 text, or bytes of their own encoding
		}
		elem := typedEncoderOf(t.Elem(), html)
		size := t.Elem().Size()
		return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
			h := (*struct {
				data     unsafe.Pointer
				len, cap int
			})(p)
			if h.data == nil {
				return append(dst, "null"...), true
			}
			return appendList(dst, elem, h.data, h.len, size, depth)
		}
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Len() > 0 {
			return nil // written as a list, but rare enough to leave
		}
		elem := typedEncoderOf(t.Elem(), html)
		size, n := t.Elem().Size(), t.Len()
		return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
			return appendList(dst, elem, p, n, size, depth)
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil
		}
		return mapFunc(t, html)
	case reflect.Struct:
		return structFunc(t, html)
	}
	return nil
}

func appendList(dst []byte, elem *typedEncoder, base unsafe.Pointer, n int, size uintptr, depth int) ([]byte, bool) {
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = elem.append(dst, unsafe.Add(base, uintptr(i)*size), depth+1); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

// integerFunc returns the typedFunc of an integer of that size, of type
// T8, T16, T32 or T64.
func integerFunc[T8, T16, T32, T64 integer](size uintptr) typedFunc {
	switch size {
	case 1:
		return appendInteger[T8]
	case 2:
		return appendInteger[T16]
	case 4:
		return appendInteger[T32]
	}
	return appendInteger[T64]
}

type integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

func appendInteger[T integer](dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
	v := *(*T)(p)
	if v < 0 {
		return strconv.AppendInt(dst, int64(v), 10), true
	}
	return strconv.AppendUint(dst, uint64(v), 10), true
}

// appendFloat writes f as encoding/json does; false for NaN and infinities.
func appendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 is written e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// appendNumber writes a json.Number as the number it holds.
func appendNumber(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
	s := *(*string)(p)
	if s == "" {
		s = "0"
	}
	if !validNumber(s) {
		return dst, false
	}
	return append(dst, s...), true
}

func validNumber(s string) bool {
	i := 0
	digits := func() bool {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// appendRaw writes a json.RawMessage or Compacted compacted, as
// encoding/json writes what a MarshalJSON returns.
func appendRaw(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
	raw := *(*[]byte)(p)
	if raw == nil {
		return append(dst, "null"...), true
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if json.Compact(&buf, raw) != nil {
		return dst, false
	}
	return append(dst, validUTF8(unescapeSeparators(buf.Bytes()))...), true
}

// appendRawHTML writes a json.RawMessage or Compacted as json.Marshal
// does: compacted, HTML characters, U+2028 and U+2029 escaped.
func appendRawHTML(dst []byte, p unsafe.Pointer, _ int) ([]byte, bool) {
	raw := *(*[]byte)(p)
	if raw == nil {
		return append(dst, "null"...), true
	}
	var buf, escaped bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return dst, false
	}
	json.HTMLEscape(&escaped, buf.Bytes())
	return append(dst, escaped.Bytes()...), true
}

// appendStringHTML writes s as json.Marshal does: HTML characters, U+2028,
// U+2029 and each byte that is not valid UTF-8 escaped.
func appendStringHTML(dst []byte, s string) []byte { return appendStringAs(dst, s, true) }

// appendString writes s as encoding/json writes it without HTML escaping,
// then as Compact leaves it: U+2028 and U+2029 as themselves and each
// byte that is not valid UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte { return appendStringAs(dst, s, false) }

// plainASCII and plainASCIIHTML mark the ASCII bytes a string holds as
// themselves, without and with HTML escaping.
var plainASCII, plainASCIIHTML = func() (plain, html [utf8.RuneSelf]bool) {
	for b := range utf8.RuneSelf {
		plain[b] = b >= 0x20 && b != '"' && b != '\\'
		html[b] = plain[b] && b != '<' && b != '>' && b != '&'
	}
	return plain, html
}()

func appendStringAs(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	plain := &plainASCII
	if html {
		plain = &plainASCIIHTML
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			if html {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, "\uFFFD"...)
			}
		case html && (c == '\u2028' || c == '\u2029'):
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func mapFunc(t reflect.Type, html bool) typedFunc {
	elem := typedEncoderOf(t.Elem(), html)
	return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
		return appendMapValue(dst, reflect.NewAt(t, p).Elem(), elem, depth, html)
	}
}

// appendMapValue writes the map m, whose keys are strings, its keys sorted.
func appendMapValue(dst []byte, m reflect.Value, elem *typedEncoder, depth int, html bool) ([]byte, bool) {
	if m.IsNil() {
		return append(dst, "null"...), true
	}
	t := m.Type()
	n := m.Len()
	// the values are copied into one array, the keys sorted with their
	// place in it
	type entry struct {
		key string
		at  int
	}
	var small [16]entry
	entries := small[:0]
	vals := reflect.MakeSlice(reflect.SliceOf(t.Elem()), n, n)
	k := reflect.New(t.Key()).Elem()
	var iter reflect.MapIter
	iter.Reset(m)
	for i := 0; iter.Next() && i < n; i++ {
		k.SetIterKey(&iter)
		vals.Index(i).SetIterValue(&iter)
		entries = append(entries, entry{k.String(), i})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	base, size := vals.UnsafePointer(), t.Elem().Size()
	dst = append(dst, '{')
	for i, e := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		if html {
			dst = appendStringHTML(dst, e.key)
		} else {
			dst = appendString(dst, e.key)
		}
		dst = append(dst, ':')
		var ok bool
		if dst, ok = elem.append(dst, unsafe.Add(base, uintptr(e.at)*size), depth+1); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// typedField is a field of a struct as encoding/json writes it.
type typedField struct {
	key       string // `"name":`
	off       uintptr
	omitEmpty bool
	empty     func(p unsafe.Pointer) bool
	enc       *typedEncoder
}

func structFunc(t reflect.Type, html bool) typedFunc {
	var fields []typedField
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := cutComma(tag)
		if name == "" {
			name = f.Name
		} else if !validTag(name) {
			return nil
		}
		omitEmpty := false
		switch opts {
		case "":
		case "omitempty":
			omitEmpty = true
		default:
			return nil
		}
		if seen[name] {
			return nil // encoding/json drops both, or keeps one by rules left to it
		}
		seen[name] = true
		key := name
		if html {
			var b bytes.Buffer
			json.HTMLEscape(&b, []byte(name))
			key = b.String()
		}
		tf := typedField{key: `"` + key + `":`, off: f.Offset, omitEmpty: omitEmpty, enc: typedEncoderOf(f.Type, html)}
		if omitEmpty {
			if tf.empty = emptyFunc(f.Type); tf.empty == nil {
				return nil
			}
		}
		fields = append(fields, tf)
	}
	return func(dst []byte, p unsafe.Pointer, depth int) ([]byte, bool) {
		dst = append(dst, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			q := unsafe.Add(p, f.off)
			if f.omitEmpty && f.empty(q) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.key...)
			var ok bool
			if dst, ok = f.enc.append(dst, q, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
}

func cutComma(tag string) (name, opts string, found bool) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// validTag is encoding/json's test of a tag's name; a field whose tag
// name fails it is named otherwise, which is left to encoding/json.
func validTag(s string) bool {
	for _, c := range s {
		switch {
		case bytes.ContainsRune([]byte("!#$%&()*+-./:;<=>?@[]^_{|}~ "), c):
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false // other letters and digits included: rare, left to encoding/json
		}
	}
	return s != ""
}

// emptyFunc is encoding/json's isEmptyValue for values of type t.
func emptyFunc(t reflect.Type) func(p unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*struct{ _, l, _ int })(p).l == 0 }
	case reflect.Map:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
	case reflect.Array:
		n := t.Len()
		return func(unsafe.Pointer) bool { return n == 0 }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Interface:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsNil() }
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 } // -0 too, as reflect.Value.IsZero says
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		size := t.Size()
		return func(p unsafe.Pointer) bool {
			for _, b := range unsafe.Slice((*byte)(p), size) {
				if b != 0 {
					return false
				}
			}
			return true
		}
	case reflect.Struct:
		return func(unsafe.Pointer) bool { return false }
	}
	return nil
}
