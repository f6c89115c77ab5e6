package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/internal/secret"
)

// FormatVersion is the version of a cassette file's format.
const FormatVersion = 1

// A cassette file is JSON Lines: a header, then one exchange a line in the
// order of the rollout's turns.
//
//	{"formatVersion":1}
//	{"endpoint":"/chat/completions","request":{…},"response":{…},"turn":1}
//	{"endpoint":"/chat/completions","messagesFrom":3,"request":{…},"response":{…},"turn":2}
//
// A request's "messages" holds only the messages after the first
// messagesFrom, which are those of the previous line's request: a
// conversation's earlier messages are stored once, not once a turn. Every
// object's keys are sorted and nothing is indented, so the bytes depend on
// the exchanges alone.
type line struct {
	Endpoint     string          `json:"endpoint"`
	MessagesFrom int             `json:"messagesFrom,omitempty"`
	Request      json.RawMessage `json:"request"`
	Response     json.RawMessage `json:"response"`
	Turn         int             `json:"turn"`
}

// Exchange is one request and its answer.
type Exchange struct {
	Turn     int
	Endpoint string
	// Request is the canonical request (keys sorted, compact, secrets
	// redacted, the volatile fields left out): the key. Response is the
	// answer's body, compact, secrets redacted.
	Request, Response []byte
	req               map[string]any // Request decoded
}

// messages is the request's "messages", nil when it has none.
func (e *Exchange) messages() []any {
	m, _ := e.req["messages"].([]any)
	return m
}

// volatile are the top-level fields of a request body that do not decide
// the answer and are no part of the key.
var volatile = []string{"user", "metadata"}

// canonicalRequest is the key of a request's body and its decoded form.
func canonicalRequest(body []byte) ([]byte, map[string]any, error) {
	v, err := canon.Decode(secret.Redact(body))
	if err != nil {
		return nil, nil, fmt.Errorf("the request is not JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("the request is not a JSON object")
	}
	for _, k := range volatile {
		delete(m, k)
	}
	b, err := canon.Compact(m)
	return b, m, err
}

// compactResponse is an answer as a cassette keeps it.
func compactResponse(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, secret.Redact(body)); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// Tape is the exchanges of one cassette file, shared by the rollouts of a
// process that use it; its lock is held for a whole request, so that
// rollouts of one case running at once ask the model once.
type Tape struct {
	mu        sync.Mutex
	project   string // the base no file is written outside
	path      string // absolute
	exchanges []Exchange
	loaded    bool // read from the file (or found absent)
	reset     bool // emptied by a record of this process
}

// tapes are the process's tapes by absolute path.
var tapes = struct {
	sync.Mutex
	m map[string]*Tape
}{m: map[string]*Tape{}}

// tape returns the process's tape of the file rel in project.
func tape(project, rel string) (*Tape, error) {
	abs, err := filepath.Abs(filepath.Join(project, rel))
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(project)
	if err != nil {
		return nil, err
	}
	tapes.Lock()
	defer tapes.Unlock()
	t := tapes.m[abs]
	if t == nil {
		t = &Tape{project: base, path: abs}
		tapes.m[abs] = t
	}
	return t, nil
}

// load reads the file once; a file that is not there is an empty tape.
// Called with t.mu held.
func (t *Tape) load() error {
	if t.loaded {
		return nil
	}
	if err := safeio.CheckChain(t.project, t.path); err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	data, err := safeio.ReadNoFollow(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.loaded = true
		return nil
	case err != nil:
		return fmt.Errorf("cassette: %w", err)
	}
	ex, err := Parse(data)
	if err != nil {
		return fmt.Errorf("cassette %s: %w; record it again with --model-cache record", t.path, err)
	}
	t.exchanges, t.loaded = ex, true
	return nil
}

// Parse reads a cassette file.
func Parse(data []byte) ([]Exchange, error) {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var head struct {
		FormatVersion int `json:"formatVersion"`
	}
	if err := json.Unmarshal(lines[0], &head); err != nil || head.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("line 1 is not a cassette's header {\"formatVersion\":%d}", FormatVersion)
	}
	var out []Exchange
	var prev []any
	for i, l := range lines[1:] {
		var ln line
		if err := json.Unmarshal(l, &ln); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		v, err := canon.Decode(ln.Request)
		req, ok := v.(map[string]any)
		if err != nil || !ok {
			return nil, fmt.Errorf("line %d: the request is not a JSON object", i+2)
		}
		if ln.MessagesFrom > 0 {
			own, _ := req["messages"].([]any)
			if ln.MessagesFrom > len(prev) {
				return nil, fmt.Errorf("line %d: messagesFrom %d is past the %d messages of the line before", i+2, ln.MessagesFrom, len(prev))
			}
			req["messages"] = append(append([]any{}, prev[:ln.MessagesFrom]...), own...)
		}
		full, err := canon.Compact(req)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		prev, _ = req["messages"].([]any)
		out = append(out, Exchange{Turn: ln.Turn, Endpoint: ln.Endpoint, Request: full, Response: ln.Response, req: req})
	}
	return out, nil
}

// Marshal writes exchanges as a cassette file.
func Marshal(exchanges []Exchange) ([]byte, error) {
	out := fmt.Appendf(nil, "{\"formatVersion\":%d}\n", FormatVersion)
	var prev []any
	for _, e := range exchanges {
		req := e.req
		msgs := e.messages()
		from := commonPrefix(prev, msgs)
		if from > 0 {
			short := make(map[string]any, len(req))
			for k, v := range req {
				short[k] = v
			}
			short["messages"] = msgs[from:]
			req = short
		}
		b, err := canon.Compact(req)
		if err != nil {
			return nil, err
		}
		l, err := canon.Compact(map[string]any{"endpoint": e.Endpoint, "request": json.RawMessage(b), "response": json.RawMessage(e.Response), "turn": e.Turn})
		if err != nil {
			return nil, err
		}
		if from > 0 {
			// the key sorted in its place, between endpoint and request
			l = bytes.Replace(l, []byte(`,"request":`), fmt.Appendf(nil, `,"messagesFrom":%d,"request":`, from), 1)
		}
		out = append(append(out, l...), '\n')
		prev = msgs
	}
	return out, nil
}

// commonPrefix is how many of the first messages a and b share.
func commonPrefix(a, b []any) int {
	n := 0
	for n < len(a) && n < len(b) && equal(a[n], b[n]) {
		n++
	}
	return n
}

func equal(a, b any) bool {
	x, err1 := canon.Compact(a)
	y, err2 := canon.Compact(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// record keeps e as the answer of its turn: the exchanges of that turn and
// later ones, of a conversation that went otherwise, are dropped. The file
// is written again, atomically. Called with t.mu held.
func (t *Tape) record(e Exchange) error {
	kept := t.exchanges[:0:0]
	for _, x := range t.exchanges {
		if x.Turn < e.Turn {
			kept = append(kept, x)
		}
	}
	t.exchanges = append(kept, e)
	data, err := Marshal(t.exchanges)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(t.project, t.path, data); err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	return nil
}

// find is the recorded answer of the request at turn, or nil.
func (t *Tape) find(turn int, endpoint string, key []byte) *Exchange {
	for i := range t.exchanges {
		e := &t.exchanges[i]
		if e.Turn == turn && e.Endpoint == endpoint && bytes.Equal(e.Request, key) {
			return e
		}
	}
	return nil
}
