package cassette

import (
	"context"
	"fmt"
)

// Answer is how a request was answered.
type Answer int

// Answers of Do.
const (
	Live     Answer = iota // asked of the API (no cassette, or recorded)
	Replayed               // the cassette's answer
	Reasked                // a miss in ModeAuto: asked of the API and recorded
)

// Do answers the request body posted to endpoint (a URL's path) at turn of
// the rollout ctx belongs to, as c's mode says: from the cassette, or by
// calling live, which asks the API, and recording its answer. In
// ModeReplay a request the cassette does not hold is a *Miss and live is
// never called; in ModeAuto the miss is returned with the live answer
// (Reasked). A cassette that cannot be read or written is an error.
func (c *Config) Do(ctx context.Context, turn int, endpoint string, body []byte, live func() ([]byte, error)) ([]byte, Answer, *Miss, error) {
	if c == nil || c.Mode == ModeOff || c.Mode == "" {
		b, err := live()
		return b, Live, nil, err
	}
	id := c.Identity.merged(ctx)
	rel, err := id.Path()
	if err != nil {
		return nil, Live, nil, err
	}
	t, err := tape(c.Project, rel)
	if err != nil {
		return nil, Live, nil, err
	}
	key, req, err := canonicalRequest(body)
	if err != nil {
		return nil, Live, nil, fmt.Errorf("model cache: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.Mode == ModeRecord && !t.reset {
		// a record starts the cassette afresh, once a process: the
		// rollouts after the first of the same case replay it
		t.exchanges, t.loaded, t.reset = nil, true, true
	}
	if err := t.load(); err != nil {
		return nil, Live, nil, err
	}
	if e := t.find(turn, endpoint, key); e != nil {
		return e.Response, Replayed, nil, nil
	}
	var miss *Miss
	if c.Mode != ModeRecord {
		miss = missOf(t, rel, turn, endpoint, key, req)
	}
	if c.Mode == ModeReplay {
		return nil, Replayed, miss, miss
	}
	answer, err := live()
	if err != nil {
		return nil, Live, miss, err
	}
	resp, err := compactResponse(answer)
	if err != nil {
		// kept out of the cassette: the caller reports what the API said
		return answer, Live, miss, nil
	}
	if err := t.record(Exchange{Turn: turn, Endpoint: endpoint, Request: key, Response: resp, req: req}); err != nil {
		return nil, Live, miss, err
	}
	how := Live
	if miss != nil {
		how = Reasked
	}
	return resp, how, miss, nil
}
