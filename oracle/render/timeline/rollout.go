package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// Rollout is what the artifacts of one rollout say, each file read as its
// runner type where there is one and as a tolerant local shape where the
// file may come from elsewhere (the original runner's state diff and
// trace). A file that is not there is nil.
type Rollout struct {
	Source    *Source
	Run       *runner.RunInfo
	Result    *runner.Result
	Calls     []runner.Call
	HasCalls  bool
	StateDiff *StateDiff
	Trace     []Event
	HasTrace  bool
	// Sizes are the bytes of each file read, by file name.
	Sizes map[string]int
}

// StateDiff is state-diff.json: scalars and collections of members, each
// member an id with its value (added, removed) or its changes. A member
// listed by id alone (the original runner's diff) has neither.
type StateDiff struct {
	Scalars     []statediff.Change
	Collections map[string]*Collection
}

// Collection is one collection of a state diff.
type Collection struct {
	Added, Removed, Changed []Member
}

// Member is a member of a collection that was added, removed or changed.
type Member struct {
	ID      string             `json:"id"`
	Value   json.RawMessage    `json:"value"`
	Changes []statediff.Change `json:"changes"`
}

// Event is one line of trace.jsonl: its type, sequence number and time,
// and its other fields; Bad holds a line that is not a JSON object.
type Event struct {
	Line   int
	Seq    int
	Type   string
	At     string
	Fields map[string]json.RawMessage
	Bad    string
}

// Load reads the artifacts of src. A file that is a symlink, a FIFO or
// anything but a regular file is an error naming it, and so is one that
// is larger or nested deeper than oracle reads, or one that is not what
// its name says (a result.json that is not a result).
func Load(src *Source) (*Rollout, error) {
	r := &Rollout{Source: src, Sizes: map[string]int{}}
	for _, name := range Files {
		path, ok := src.Paths[name]
		if !ok {
			continue
		}
		data, err := safeio.ReadNoFollow(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since it was found
		}
		if err != nil {
			return nil, readError(err)
		}
		if err := safeio.CheckLimits(data); err != nil {
			return nil, fmt.Errorf("%s %w", path, err)
		}
		r.Sizes[name] = len(data)
		if err := r.parse(name, data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return r, nil
}

func (r *Rollout) parse(name string, data []byte) error {
	switch name {
	case runner.RunFile:
		r.Run = new(runner.RunInfo)
		return decode(data, r.Run, "a run's run.json")
	case runner.ResultFile:
		r.Result = new(runner.Result)
		return decode(data, r.Result, "a result")
	case runner.CallsFile:
		r.HasCalls = true
		return decode(data, &r.Calls, "a list of calls")
	case runner.StateDiffFile:
		d, err := parseStateDiff(data)
		r.StateDiff = d
		return err
	case runner.TraceFile:
		r.HasTrace = true
		r.Trace = parseTrace(data)
	}
	return nil
}

func decode(data []byte, v any, what string) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("not %s: %v", what, err)
	}
	return nil
}

// parseStateDiff reads state-diff.json: the runner's shape, or the
// original runner's, whose members are ids.
func parseStateDiff(data []byte) (*StateDiff, error) {
	var raw struct {
		Scalars     []statediff.Change `json:"scalars"`
		Collections map[string]struct {
			Added, Removed, Changed []json.RawMessage
		} `json:"collections"`
	}
	if err := decode(data, &raw, "a state diff"); err != nil {
		return nil, err
	}
	d := &StateDiff{Scalars: raw.Scalars, Collections: map[string]*Collection{}}
	for name, c := range raw.Collections {
		col := &Collection{}
		for _, side := range []struct {
			from []json.RawMessage
			to   *[]Member
		}{{c.Added, &col.Added}, {c.Removed, &col.Removed}, {c.Changed, &col.Changed}} {
			for _, m := range side.from {
				var member Member
				if err := json.Unmarshal(m, &member.ID); err != nil {
					if err := json.Unmarshal(m, &member); err != nil {
						return nil, fmt.Errorf("not a state diff: collection %q: a member that is neither an id nor an object with one", name)
					}
				}
				*side.to = append(*side.to, member)
			}
		}
		d.Collections[name] = col
	}
	return d, nil
}

// Names are the collections of the diff in order.
func (d *StateDiff) Names() []string {
	names := make([]string, 0, len(d.Collections))
	for n := range d.Collections {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// parseTrace reads trace.jsonl line by line; a line that is not a JSON
// object is kept as it is, for the page to show.
func parseTrace(data []byte) []Event {
	var out []Event
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		ev := Event{Line: i + 1}
		if err := json.Unmarshal(line, &ev.Fields); err != nil || ev.Fields == nil {
			ev.Bad = string(line)
			ev.Fields = nil
			out = append(out, ev)
			continue
		}
		json.Unmarshal(ev.Fields["type"], &ev.Type)
		json.Unmarshal(ev.Fields["seq"], &ev.Seq)
		json.Unmarshal(ev.Fields["at"], &ev.At)
		delete(ev.Fields, "type")
		delete(ev.Fields, "seq")
		delete(ev.Fields, "at")
		out = append(out, ev)
	}
	return out
}

// str is a field of an event as a string, "" when it is not one.
func (e *Event) str(key string) string {
	var s string
	json.Unmarshal(e.Fields[key], &s)
	return s
}

// num is a field of an event as a number, and whether it is one.
func (e *Event) num(key string) (float64, bool) {
	var f float64
	err := json.Unmarshal(e.Fields[key], &f)
	return f, err == nil && e.Fields[key] != nil
}
