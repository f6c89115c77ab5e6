package timeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// markup finds elements that only the rollout's text could have put in
// the page: the page itself has none of them.
var markup = regexp.MustCompile(`(?i)<(script|img|b|i|em|iframe|object|embed|link|svg|math|form|input|base|meta http-equiv="refresh")[\s>/]`)

var links = regexp.MustCompile(`(?i)\s(?:src|href|action|srcset|poster|data)\s*=\s*"([^"]*)"`)

// checkSafe fails the test for a page that holds markup from the text it
// shows, the invisible characters as themselves, or a reference outside
// itself.
func checkSafe(t *testing.T, page string) {
	t.Helper()
	if m := markup.FindString(page); m != "" {
		t.Errorf("the page holds %q from the rollout's text", m)
	}
	for _, r := range []rune{'\u202e', '\x1b', '\x00', '\u2028', '\ufeff'} {
		if strings.ContainsRune(page, r) {
			t.Errorf("the page holds %U as itself", r)
		}
	}
	for _, m := range links.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("the page refers outside itself: %s", m[0])
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "@import") || strings.Contains(page, "url(") {
		t.Error("the page has a script or loads a style")
	}
}

// TestPageOfAHostileRun makes the page of a real rollout whose task,
// inputs, outputs, events, checks and answer carry markup, a script's
// end, a right-to-left override and control characters, and whose answer
// is a megabyte long: every step is there in order, everything is text,
// the answer is cut and says so, and the policy names the page's own style
// and nothing else.
func TestPageOfAHostileRun(t *testing.T) {
	page := pageOf(t, realRun(t, hostileAgent))
	checkSafe(t, page)
	page = plus(page)
	want := []string{
		"start: start at +0s task TASK-001 agent hostile budget 100 calls, 2m0s",
		"call: #1 list_counters",
		"call: #2 set_counter",
		"call: #3 set_counter ✗ tool error: not_found",
		"call: #4 add_counter",
		"call: #5 set_note",
		"other: custom_thing",
		"answer: answer",
		"end: end",
		"grade: graded",
	}
	got := entries(page)
	if len(got) != len(want) {
		t.Fatalf("entries:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("entry %d is %q, want %q…", i+1, got[i], want[i])
		}
	}
	for _, want := range []string{
		// the instruction first, with its invisible characters named
		`<section id="instruction">`,
		`alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; <span class="esc" title="an invisible character">U+202E</span>gnp.exe`,
		`<span class="esc" title="an invisible character">U+001B</span>[31mred<span class="esc" title="an invisible character">U+0000</span>`,
		// the answer cut, saying where the whole of it is
		"cut: 16.0 KiB of 1.0 MiB shown; the whole value is in result.json (agentOutput)",
		"cut: 400 bytes of 1.0 MiB shown; the whole value is in “The answer” below",
		// each check in the words of its kind
		`C-1 is 5 &lt;i&gt;italic&lt;/i&gt;<span class="detail">C-1 = 5</span>`,
		`<td class="mark-pass">✓ passed</td>`, `<td class="mark-fail">✗ failed</td>`,
		`<td class="mark-pass">✓ absent</td>`, `<td class="mark-pass">✓ complete</td>`,
		// the outcome
		"<dt>reward</dt><dd>0.67</dd>", "<dt>termination</dt><dd>completed</dd>", "<dt>tool calls</dt><dd>5, of which 1 failed</dd>",
		// the state diff by member: old → new
		`<td class="id">C-1</td><td class="path">/label</td><td><del class="old"><code>&#34;one&#34;</code></del>`,
		`<td class="id"></td><td class="path">/value</td><td><del class="old"><code>1</code></del><span class="arrow">→</span><ins class="new"><code>5</code></ins></td>`,
		`<td class="id">C-9</td><td class="path"><span class="what">added</span></td>`,
		`<td class="id">note</td><td class="path"></td><td><del class="old"><code>&#34;before&#34;</code></del>`,
		`<span class="verdict pass" id="verdict">✓ pass</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "END-OF-ANSWER") {
		t.Error("the megabyte answer was not cut")
	}
	if len(page) > 128<<10 {
		t.Errorf("the page is %d bytes for a rollout with one long value", len(page))
	}
	if !strings.Contains(page, `label&#34;: &#34;<span class="esc" title="an invisible character">U+202E</span>evil`) {
		t.Error("a right-to-left override inside a JSON value is not named")
	}

	// the policy: nothing but the page's own style, by its hash
	style := page[strings.Index(page, "<style>")+len("<style>") : strings.Index(page, "</style>")]
	sum := sha256.Sum256([]byte(style))
	policy := "default-src &#39;none&#39;; style-src &#39;sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "&#39;; img-src &#39;none&#39;; script-src &#39;none&#39;; base-uri &#39;none&#39;; form-action &#39;none&#39;"
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="`+policy+`">`) {
		t.Errorf("the page's policy is not %s", policy)
	}
	if strings.Contains(page, "unsafe-inline") {
		t.Error("the policy allows inline code")
	}
}

// timelineOf is the timeline of a folder of files.
func timelineOf(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	page := pageOf(t, writeFiles(t, files))
	checkSafe(t, page)
	return plus(page), entries(page)
}

// plus undoes html/template's escaping of "+", which the page's text
// reads as itself.
func plus(page string) string { return strings.ReplaceAll(page, "&#43;", "+") }

// trace joins the lines of a trace.
func trace(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestTimelineOrder(t *testing.T) {
	silo, err := os.ReadFile(filepath.Join("..", "..", "..", "runner", "testdata", "replay", "silo-run", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	siloResult, err := os.ReadFile(filepath.Join("..", "..", "..", "runner", "testdata", "replay", "silo-run", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	const start = `{"seq":1,"type":"run_start","at":"2026-04-13T09:00:00.000Z","runId":"run_1","environment":"crm","task":{"id":"TASK-004","title":"Weigh the pipeline","instruction":"What is the weighted pipeline?"},"config":{"maxToolCalls":3,"timeoutMs":1000,"agent":"openai:m"},"tools":[{"name":"get_x","description":"Gets x."}]}`
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		has   []string // in the page
	}{{
		name: "calls.json alone, in order, with a tool error",
		files: map[string]string{"calls.json": `[{"tool":"a","input":{"q":1},"output":{"ok":true}},{"tool":"b","input":null,"error":{"code":"boom","message":"it <b>broke</b>"}}]`,
			"result.json": `{"passed":false,"verdict":"fail","reward":0,"checks":[]}`},
		want: []string{"call: #1 a", "call: #2 b ✗ tool error: boom"},
		has:  []string{"There is no trace: the timeline is calls.json", "it &lt;b&gt;broke&lt;/b&gt;", `<span class="verdict fail" id="verdict">✗ fail</span>`},
	}, {
		name:  "the original runner's trace: calls and results paired by order",
		files: map[string]string{"trace.jsonl": string(silo), "result.json": string(siloResult)},
		want:  []string{"call: #1 list_stalled_deals at +0s", "call: #2 list_users at +4ms"},
		has: []string{"there is no run.json and the trace has no run_start", `<span class="verdict pass" id="verdict">✓ pass</span>`,
			`Names the rep with the most stalled deals<span class="detail">`, `<td>required</td><td class="mark-pass">✓ passed</td>`,
			`<td>optional</td><td class="mark-pass">✓ passed</td>`},
	}, {
		name: "a call refused for the budget is in calls.json only: it goes after the calls of the trace",
		files: map[string]string{
			"trace.jsonl": trace(start,
				`{"seq":2,"type":"tool_call","at":"2026-04-13T09:00:00.001Z","callId":1,"tool":"get_x","input":{}}`,
				`{"seq":3,"type":"tool_result","at":"2026-04-13T09:00:00.002Z","callId":1,"tool":"get_x","output":1,"isError":false,"durationMs":1}`,
				`{"seq":4,"type":"agent_output","at":"2026-04-13T09:00:00.003Z","output":"done"}`,
				`{"seq":5,"type":"run_end","at":"2026-04-13T09:00:00.004Z","terminationReason":"max_tool_calls","error":"the budget of 1 tool calls is used up","toolCalls":1,"toolErrors":1,"durationMs":4}`),
			"calls.json": `[{"tool":"get_x","input":{},"output":1},{"tool":"get_x","input":{},"error":{"code":"max_tool_calls","message":"the budget of 1 tool calls is used up"}}]`,
		},
		want: []string{"start: start at +0s task TASK-004 agent openai:m budget 3 calls, 1s", "call: #1 get_x 1 ms at +1ms",
			"call: #2 get_x ✗ tool error: max_tool_calls in calls.json only: the trace has no event of it", "answer: answer at +3ms",
			"end: end ✗ ended: max_tool_calls at +4ms 1 tool call, 1 error took 4 ms"},
		has: []string{"What is the weighted pipeline?", "the budget of 1 tool calls is used up"},
	}, {
		name: "a model agent's turns, a retried request, an unknown event and a line that is not JSON",
		files: map[string]string{"trace.jsonl": trace(start,
			`{"seq":2,"type":"model_request","at":"2026-04-13T09:00:00.010Z","attempt":1,"body":{"messages":[{"role":"user","content":"What?"}],"model":"m"},"turn":1,"url":"http://127.0.0.1:1/v1/chat/completions"}`,
			`{"seq":3,"type":"model_response","at":"2026-04-13T09:00:00.510Z","attempt":1,"body":{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_x","arguments":"{}"}}]}}]},"status":200,"turn":1}`,
			`{"seq":4,"type":"tool_call","at":"2026-04-13T09:00:00.511Z","callId":1,"tool":"get_x","input":{}}`,
			`{"seq":5,"type":"tool_result","at":"2026-04-13T09:00:00.512Z","callId":1,"tool":"get_x","output":{"x":1},"isError":false,"durationMs":1}`,
			`{"seq":6,"type":"model_request","at":"2026-04-13T09:00:00.513Z","attempt":1,"body":{"messages":[{},{},{}]},"turn":2,"url":"u"}`,
			`{"seq":7,"type":"model_response","at":"2026-04-13T09:00:00.600Z","attempt":1,"body":{"error":{"message":"slow down"}},"status":429,"turn":2}`,
			`{"seq":8,"type":"model_request","at":"2026-04-13T09:00:01.600Z","attempt":2,"body":{"messages":[{},{},{}]},"turn":2,"url":"u"}`,
			`{"seq":9,"type":"model_response","at":"2026-04-13T09:00:02.000Z","attempt":2,"body":{"content":[{"type":"text","text":"It is <b>1</b>."},{"type":"tool_use","name":"get_y"}]},"status":200,"turn":2}`,
			`{"seq":10,"type":"model_response","at":"2026-04-13T09:00:02.001Z","attempt":3,"error":"dial tcp: connection refused","turn":3}`,
			`{"seq":11,"type":"mystery_event","at":"2026-04-13T09:00:02.002Z","payload":{"x":"</script><script>alert(1)</script>"},"note":"\u202e"}`,
			`not json <b>at all</b>`,
			`{"seq":12,"type":"agent_log","at":"2026-04-13T09:00:02.003Z","event":"tool_call","why":"reserved"}`,
			`{"seq":13,"type":"agent_stderr","at":"2026-04-13T09:00:02.004Z","stderr":"warning: \u001b[31m","droppedBytes":10}`,
			`{"seq":14,"type":"agent_output","at":"2026-04-13T09:00:02.005Z","output":"It is 1."}`,
			`{"seq":15,"type":"run_end","at":"2026-04-13T09:00:02.006Z","terminationReason":"completed","error":null,"toolCalls":1,"toolErrors":0,"durationMs":2006}`,
			`{"seq":16,"type":"verifier_result","at":"2026-04-13T09:00:02.007Z","verifierId":"VER-004","passed":false,"verdict":"fail","reward":0.5,"checks":[{"label":"States the pipeline","passed":false,"detail":"no number","required":true,"kind":"required"}]}`)},
		want: []string{
			"start: start",
			"model: model request at +10ms turn 1 attempt 1 1 messages",
			"model: model response at +510ms turn 1 attempt 1 status 200",
			"call: #1 get_x 1 ms at +511ms",
			"model: model request at +513ms turn 2 attempt 1 3 messages",
			"model: model response ✗ status 429 at +600ms turn 2 attempt 1 status 429",
			"model: model request at +1.6s turn 2 attempt 2 3 messages",
			"model: model response at +2s turn 2 attempt 2 status 200",
			"model: model response ✗ request failed at +2.001s turn 3 attempt 3",
			"other: mystery_event at +2.002s",
			"other: line 12 of the trace is not a JSON object",
			"log: agent's event tool_call at +2.003s",
			"log: agent's stderr at +2.004s 10 bytes dropped",
			"answer: answer at +2.005s",
			"end: end at +2.006s completed 1 tool call, 0 errors took 2006 ms",
			"grade: graded at +2.007s verdict fail reward 0.5 verifier VER-004",
		},
		has: []string{
			`<div class="label">calls for</div><pre class="value">get_x</pre>`,
			`<div class="label">says</div><pre class="value">It is &lt;b&gt;1&lt;/b&gt;.</pre>`,
			`<div class="label">calls for</div><pre class="value">get_y</pre>`,
			`<div class="label">error</div><pre class="value">dial tcp: connection refused</pre>`,
			`&#34;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#34;`,
			`<div class="label">note</div><pre class="value"><span class="esc" title="an invisible character">U+202E</span></pre>`,
			`not json &lt;b&gt;at all&lt;/b&gt;`,
			`warning: <span class="esc" title="an invisible character">U+001B</span>[31m`,
			"From the trace: there is no result.json.", "States the pipeline",
			"What is the weighted pipeline?",
		},
	}, {
		name: "a call that never returned",
		files: map[string]string{"trace.jsonl": trace(start,
			`{"seq":2,"type":"tool_call","at":"2026-04-13T09:00:00.001Z","callId":1,"tool":"get_x","input":{"slow":true}}`,
			`{"seq":3,"type":"run_end","at":"2026-04-13T09:00:01.001Z","terminationReason":"timeout","error":"timeout","toolCalls":1,"toolErrors":0,"durationMs":1000}`)},
		want: []string{"start: start", "call: #1 get_x ✗ no result: the rollout ended before the call returned at +1ms", "end: end ✗ ended: timeout"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, got := timelineOf(t, tt.files)
			if len(got) != len(tt.want) {
				t.Fatalf("%d entries, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range tt.want {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("entry %d:\n got %s\nwant %s…", i+1, got[i], tt.want[i])
				}
			}
			for _, want := range tt.has {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
		})
	}
}

// TestPageIsBounded: a rollout of many long outputs makes a page of
// bounded size, each value cut and saying so, and a trace of more events
// than the page shows has them counted.
func TestPageIsBounded(t *testing.T) {
	long := json.RawMessage(`{"text":"` + strings.Repeat("y", 20<<10) + `"}`)
	r := &Rollout{Source: &Source{Path: "run", Paths: map[string]string{}}, HasCalls: true, Sizes: map[string]int{}}
	for i := range 300 {
		r.Calls = append(r.Calls, runner.Call{Tool: fmt.Sprint("t", i), Input: long, Output: long})
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if got := strings.Count(page, `<li class="entry kind-call`); got != 300 {
		t.Errorf("%d entries, want 300", got)
	}
	// 8 MiB of values, then 1 KiB each, and the markup
	if len(page) > 9<<20 {
		t.Errorf("the page of 12 MiB of values is %d bytes", len(page))
	}
	if n := strings.Count(page, "✂ cut: 16.0 KiB of 20.0 KiB shown; the whole value is in calls.json (call "); n < 500 {
		t.Errorf("%d values cut at 16 KiB", n)
	}
	if n := strings.Count(page, "✂ cut: 1.0 KiB of 20.0 KiB shown; the whole value is in calls.json (call 300)"); n != 2 {
		t.Errorf("the last call's input and output are not cut to 1 KiB once the page's budget is spent (%d)", n)
	}

	var lines []string
	for i := range maxEntries + 25 {
		lines = append(lines, fmt.Sprintf(`{"seq":%d,"type":"agent_log","event":"e","i":%d}`, i+1, i))
	}
	page, got := timelineOf(t, map[string]string{"trace.jsonl": trace(lines...)})
	if len(got) != maxEntries || !strings.Contains(page, "✂ 25 more events are not shown: the page shows the first 2000; the trace holds them all.") {
		t.Errorf("%d entries shown of %d, and the rest not counted", len(got), maxEntries+25)
	}
}

// TestValueCuts: a value is cut on a character's boundary, JSON is
// indented whatever its bytes, and every character a reader cannot see is
// named.
func TestValueCuts(t *testing.T) {
	head, cut := indentHead([]byte(`{"a":[1,{}],"b":"x,{y}\"z","c":[ ]}`), 100)
	if want := "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"x,{y}\\\"z\",\n  \"c\": []\n}"; head != want || cut {
		t.Errorf("indented %q (cut %v), want %q", head, cut, want)
	}
	if head, cut := indentHead([]byte(`["é`+strings.Repeat("é", 100)), 7); head != "[\n  \"é" || !cut {
		t.Errorf("cut to %q (cut %v)", head, cut)
	}
	got := visible("a\u202eb\tc\nd\x00e\xffz\u200bf\u00e9")
	want := []piece{{"a", false}, {"U+202E", true}, {"b\tc\nd", false}, {"U+0000", true}, {"e", false}, {"byte 0xff", true},
		{"z", false}, {"U+200B", true}, {"fé", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visible (-want +got):\n%s", diff)
	}
	c := newCutter()
	if s := c.text(strings.Repeat("ab", maxValue), "x.json"); len(s.Pieces[0].Text) != maxValue || !s.Long ||
		s.Cut != "cut: 16.0 KiB of 32.0 KiB shown; the whole value is in x.json" {
		t.Errorf("a long text: %d bytes shown, long %v, %q", len(s.Pieces[0].Text), s.Long, s.Cut)
	}
	if s := c.text("short", "x.json"); s.Long || s.Cut != "" {
		t.Errorf("a short text is folded or cut: %+v", s)
	}
}

// FuzzPage makes the page of any trace: it never fails, and whatever the
// trace holds reaches the page as text.
func FuzzPage(f *testing.F) {
	for _, seed := range []string{
		`{"seq":1,"type":"tool_call","callId":1,"tool":"<b>","input":"</script>"}`,
		`{"seq":2,"type":"tool_result","callId":1,"output":{"a":"` + "\u202e" + `"},"isError":true}`,
		`{"type":"model_response","body":{"choices":[{"message":{"content":"<img src=x onerror=alert(1)>"}}]},"status":"x"}`,
		`{"type":"run_start","task":{"instruction":"<script>","title":"\u202e\u0000</title><b>"},"config":"nope","tools":[{"name":"<i>"}]}`,
		`{"type":"x","at":"not a time","` + "\u2028" + `":1}` + "\n" + `[1,2` + "\n" + `null`,
		`{"type":"run_end","terminationReason":{"a":1},"toolCalls":"many"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &Rollout{Source: &Source{Path: "run", Paths: map[string]string{}}, HasTrace: true, Trace: parseTrace(data), Sizes: map[string]int{}}
		var buf bytes.Buffer
		if err := Write(&buf, r, Options{}); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if m := markup.FindString(page); m != "" {
			t.Errorf("the page holds %q", m)
		}
		if strings.ContainsRune(page, '\u202e') || strings.ContainsRune(page, 0) {
			t.Error("an invisible character reached the page as itself")
		}
	})
}

// The names of an unknown event's fields, its type and an agent event's
// name are the agent's: shown escaped, whatever characters they hold.
func TestUnknownEventsNamesAreEscaped(t *testing.T) {
	for _, name := range []string{"\u202eevil", "\x1b[2Jclear", "zero\u200bwidth", "\u2028line", "\ufeffbom"} {
		n, _ := json.Marshal(name)
		page, _ := timelineOf(t, map[string]string{"trace.jsonl": trace(
			`{"seq":1,"type":`+string(n)+`,`+string(n)+`:1}`,
			`{"seq":2,"type":"agent_log","event":`+string(n)+`,"x":2}`,
		)})
		if strings.Contains(page, "\u200b") {
			t.Errorf("%q: the page holds U+200B as itself", name)
		}
	}
}
