package host_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeHostEnv makes the test binary a host of the environment protocol
// (fakeHost) instead of running the tests; its value names the faults the
// host shows (see fakeHost).
const fakeHostEnv = "ORACLE_TEST_FAKE_HOST"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeHostEnv); ok {
		os.Exit(fakeHost(mode))
	}
	os.Exit(m.Run())
}

// fakeHost serves the environment "counter": a state {"n": 0, "log": []},
// the tools inc (n+1), fail (changes n, then fails), hang (never answers),
// crash (exits with status 3 after a line on stderr), garbage (writes a
// line that is not JSON), deep (an output nested deeper than any artifact
// may be), big (a line of 1 MiB) and clock (n set from the wall clock),
// and the verifier VER-001 of TASK-001 (n is 2) and VER-002 (hangs).
// mode may hold "v2" (a hello of another protocol version), "nohello",
// "stray" (an answer to a request nobody sent, after the first call) and
// "tasks" (tasks in the hello).
func fakeHost(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	if strings.Contains(mode, "nohello") {
		time.Sleep(time.Hour)
	}
	protocol := 1
	if strings.Contains(mode, "v2") {
		protocol = 2
	}
	tasks := ""
	if strings.Contains(mode, "tasks") {
		tasks = `,"tasks":[{"id":"TASK-001","title":"Count to two","instruction":"Count to two.","verifierId":"VER-001"}]`
	}
	schema := `{"type":"object","properties":{"by":{"type":"integer"}},"additionalProperties":false}`
	send(`{"type":"hello","protocol":%d,"name":"counter","tools":[{"name":"inc","description":"n+1","inputSchema":%s},{"name":"read","description":"n","inputSchema":{"type":"object"},"readOnly":true},{"name":"fail","description":"fails","inputSchema":{"type":"object"}},{"name":"hang","description":"never returns","inputSchema":{"type":"object"}},{"name":"crash","description":"exits","inputSchema":{"type":"object"}},{"name":"garbage","description":"prints garbage","inputSchema":{"type":"object"}},{"name":"deep","description":"a deep output","inputSchema":{"type":"object"}},{"name":"big","description":"a big output","inputSchema":{"type":"object"}},{"name":"clock","description":"reads the clock","inputSchema":{"type":"object"}}],"verifiers":[{"id":"VER-001","taskId":"TASK-001","name":"n is 2"},{"id":"VER-002","taskId":"TASK-002","name":"hangs"}]%s}`, protocol, schema, tasks)
	type world struct {
		N   int64    `json:"n"`
		Log []string `json:"log"`
	}
	worlds := map[int64]*world{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	calls := 0
	for in.Scan() {
		var req struct {
			Type  string          `json:"type"`
			ID    int64           `json:"id"`
			World int64           `json:"world"`
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
			Task  struct {
				VerifierID string `json:"verifierId"`
			} `json:"task"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			send(`{"type":"error","id":0,"error":{"code":"bad_request","message":"not JSON"}}`)
			continue
		}
		w := worlds[req.World]
		switch req.Type {
		case "open":
			worlds[req.World] = &world{Log: []string{}}
			send(`{"type":"opened","id":%d,"state":{"n":0,"log":[]}}`, req.ID)
		case "state":
			b, _ := json.Marshal(w)
			send(`{"type":"state","id":%d,"state":%s}`, req.ID, b)
		case "verify":
			if strings.Contains(mode, "hangverify") {
				time.Sleep(time.Hour)
			}
			send(`{"type":"verified","id":%d,"checks":[{"label":"n is 2","passed":%t,"detail":"n=%d","required":true},{"label":"a note","passed":true,"kind":"optional"}]}`, req.ID, w.N == 2, w.N)
		case "close":
			delete(worlds, req.World)
			send(`{"type":"closed","id":%d}`, req.ID)
		case "call":
			calls++
			if calls == 2 && strings.Contains(mode, "stray") {
				send(`{"type":"result","id":%d,"isError":false,"output":1}`, req.ID+1000)
			}
			switch req.Tool {
			case "inc":
				var in struct{ By int64 }
				json.Unmarshal(req.Input, &in)
				w.N += max(in.By, 1)
				w.Log = append(w.Log, "inc")
				send(`{"type":"result","id":%d,"isError":false,"output":{"n":%d}}`, req.ID, w.N)
			case "read":
				send(`{"type":"result","id":%d,"isError":false,"output":{"n":%d}}`, req.ID, w.N)
			case "fail":
				send(`{"type":"result","id":%d,"isError":true,"output":{"code":"not_allowed","message":"no","details":{"n":%d}}}`, req.ID, w.N)
			case "hang":
				time.Sleep(time.Hour)
			case "crash":
				fmt.Fprintln(os.Stderr, "fatal: the counter overflowed")
				os.Exit(3)
			case "garbage":
				send("Counting to %d...", w.N)
			case "deep":
				send(`{"type":"result","id":%d,"isError":false,"output":%s%s}`, req.ID, strings.Repeat("[", 1001), strings.Repeat("]", 1001))
			case "big":
				send(`{"type":"result","id":%d,"isError":false,"output":"%s"}`, req.ID, strings.Repeat("x", 1<<20))
			case "clock":
				w.N = time.Now().UnixNano()
				send(`{"type":"result","id":%d,"isError":false,"output":{"n":%d}}`, req.ID, w.N)
			}
		}
	}
	return 0
}
