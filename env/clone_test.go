package env

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type status string

type row struct {
	ID      string   `json:"id"`
	Status  status   `json:"status"`
	Owner   *string  `json:"owner"`
	Score   *float64 `json:"score"`
	Tags    []string `json:"tags"`
	Counts  []int    `json:"counts"`
	Ref     *row     `json:"ref"`
	Grid    [2][]int `json:"grid"`
	Parents []*row   `json:"parents"`
}

type table struct {
	Rows   []row             `json:"rows"`
	Status []status          `json:"status"`
	ByID   map[string]row    `json:"byId"`
	Empty  []row             `json:"empty"`
	Nil    []row             `json:"nil"`
	Set    map[string]bool   `json:"set"`
	Nested map[string][]row  `json:"nested"`
	Deep   [][]string        `json:"deep"`
	Named  map[status]status `json:"named"`
	Seq    map[string]int    `json:"seq"`
	Labels map[string]string `json:"labels"`
}

func newTable() *table {
	owner, score := "USR-1", 2.5
	return &table{
		Rows: []row{
			{ID: "R-1", Status: "open", Owner: &owner, Score: &score, Tags: []string{"a", "b"}, Counts: []int{1},
				Ref: &row{ID: "R-9", Tags: []string{}}, Grid: [2][]int{{1}, nil}, Parents: []*row{{ID: "P"}, nil}},
			{ID: "R-2", Tags: []string{}, Counts: nil},
			{ID: "R-3", Owner: &owner, Tags: []string{"c"}},
		},
		Status: []status{"x"},
		ByID:   map[string]row{"R-1": {ID: "R-1", Tags: []string{"m"}}},
		Empty:  []row{},
		Set:    map[string]bool{},
		Nested: map[string][]row{"a": {{ID: "N", Counts: []int{7}}}},
		Deep:   [][]string{{"d"}, {}, nil},
		Named:  map[status]status{"k": "v"},
		Seq:    map[string]int{"AUD": 3, "OPP": 7},
	}
}

// Clone gives what a JSON round trip gives for every shape a state takes,
// and the copy shares nothing that can change with the original: not even
// slices copied together into one array, whose appends stay their own.
func TestCloneShapes(t *testing.T) {
	s := newTable()
	c, err := Clone(s)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var want table
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, c); diff != "" {
		t.Errorf("clone (-round trip +clone):\n%s", diff)
	}
	// change everything the clone can reach
	c.Rows[0].Tags = append(c.Rows[0].Tags, "appended")
	c.Rows[1].Tags = append(c.Rows[1].Tags, "appended")
	c.Rows[0].Tags[0] = "changed"
	*c.Rows[0].Owner = "changed"
	*c.Rows[2].Owner = "changed too"
	*c.Rows[0].Score = 9
	c.Rows[0].Counts[0] = 9
	c.Rows[0].Ref.ID = "changed"
	c.Rows[0].Grid[0][0] = 9
	c.Rows[0].Parents[0].ID = "changed"
	c.Status[0] = "changed"
	c.ByID["R-1"].Tags[0] = "changed"
	c.Nested["a"][0].Counts[0] = 9
	c.Deep[0][0] = "changed"
	c.Named["k"] = "changed"
	c.Set["new"] = true
	c.Seq["AUD"] = 9
	c.Empty = append(c.Empty, row{ID: "new"})
	if diff := cmp.Diff(&want, s); diff != "" {
		t.Errorf("changing the clone changed the original (-before +after):\n%s", diff)
	}
	if got := c.Rows[2].Tags; len(got) != 1 || got[0] != "c" {
		t.Errorf("an append to one row's tags reached the next row's: %q", got)
	}
	if c.Rows[0].Owner == c.Rows[2].Owner {
		t.Error("two rows of the clone share a pointer")
	}
}
