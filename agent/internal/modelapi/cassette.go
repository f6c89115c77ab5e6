package modelapi

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/cassette"
	"github.com/agent-oracle/oracle/internal/secret"
)

// postCassette is Post through c.Cassette (internal/cassette): the answer
// recorded for the request, or the API's, recorded. A replayed answer is
// logged as a model_response with "cassette": "replayed"; a miss as a
// model_cache_miss event with the nearest recorded request. In replay a
// miss is the error (a *cassette.Miss: the model was asked something new,
// neither the agent's failure nor the infrastructure's); in auto the
// model is asked, and whoever watches the rollout is told (env.Notify).
func (c Client) postCassette(ctx context.Context, req Request, log Log) ([]byte, error) {
	secret.Add(c.Secrets(req.URL)...)
	live := c
	live.Cassette = nil
	endpoint := req.URL
	if u, err := url.Parse(req.URL); err == nil {
		endpoint = u.Path
	}
	asked := false
	data, how, miss, err := c.Cassette.Do(ctx, req.Turn, endpoint, req.Body, func() ([]byte, error) {
		asked = true
		return live.Post(ctx, req, log)
	})
	if miss != nil {
		log("model_cache_miss", map[string]any{"turn": req.Turn, "what": miss.What, "cassette": miss.Cassette,
			"request": json.RawMessage(miss.Request), "nearest": nearestJSON(miss.Nearest)})
	}
	if how == cassette.Reasked {
		env.Notify(ctx, "model cache: "+miss.Error()+"; asking the model from here on (--model-cache auto)")
	}
	if err != nil {
		return nil, err
	}
	if !asked {
		logged := req.Logged
		if logged == nil {
			logged = json.RawMessage(req.Body)
		}
		log("model_request", map[string]any{"turn": req.Turn, "attempt": 1, "url": endpoint, "body": logged})
		log("model_response", map[string]any{"turn": req.Turn, "attempt": 1, "status": 200, "cassette": "replayed", "body": json.RawMessage(data)})
	}
	return data, nil
}

func nearestJSON(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return b
}
