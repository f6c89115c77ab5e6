package env

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

type depthNode struct {
	Name     string      `json:"name"`
	Children []depthNode `json:"children"`
}

type depthDeep struct {
	A [][][]map[string][]*struct {
		B []int `json:"b"`
	} `json:"a"`
	Raw []byte `json:"raw"`
}

// depthBound is the deepest nesting json.Marshal can write for the type,
// checked against the JSON of a value that fills every level.
func TestDepthBound(t *testing.T) {
	deep := depthDeep{A: [][][]map[string][]*struct {
		B []int `json:"b"`
	}{{{{"k": {{B: []int{1}}}}}}}, Raw: []byte("x")}
	tests := []struct {
		name    string
		typ     reflect.Type
		value   any // a value as deep as the type allows, or nil
		depth   int
		bounded bool
	}{
		{"string", reflect.TypeFor[string](), "x", 0, true},
		{"bytes are a string", reflect.TypeFor[[]byte](), []byte("x"), 0, true},
		{"byte array is an array", reflect.TypeFor[[2]byte](), [2]byte{}, 1, true},
		{"empty struct", reflect.TypeFor[struct{}](), struct{}{}, 1, true},
		{"pointer adds nothing", reflect.TypeFor[*[]int](), &[]int{1}, 1, true},
		{"nested", reflect.TypeFor[depthDeep](), deep, 8, true},
		{"recursive", reflect.TypeFor[depthNode](), nil, 0, false},
		{"interface", reflect.TypeFor[struct{ X any }](), nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := depthBound(tt.typ)
			if ok != tt.bounded || ok && d != tt.depth {
				t.Fatalf("depthBound = %d, %v; want %d, %v", d, ok, tt.depth, tt.bounded)
			}
			if tt.value != nil {
				data, err := json.Marshal(tt.value)
				if err != nil {
					t.Fatal(err)
				}
				if got := safeio.Depth(data); got != tt.depth {
					t.Errorf("the JSON %s is %d deep, the bound says %d", data, got, tt.depth)
				}
			}
		})
	}
}

// A world says its state is shallow only when the type bounds its depth
// and it is copied without JSON (no custom marshalling, which could nest
// anything).
func TestShallowState(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[struct {
			Items []struct{ ID string } `json:"items"`
		}](), true},
		{reflect.TypeFor[depthNode](), false},
		{reflect.TypeFor[struct {
			Raw json.RawMessage `json:"raw"`
		}](), false},
		{reflect.TypeFor[struct {
			Deep [][][][][][][][][][]int `json:"deep"`
		}](), true},
	}
	for _, tt := range tests {
		name := strings.ReplaceAll(tt.typ.String(), " ", "")
		if got := shallowState(tt.typ); got != tt.want {
			t.Errorf("shallowState(%s) = %v, want %v", name, got, tt.want)
		}
	}
}
