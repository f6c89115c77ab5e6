package timeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/internal/browsertest"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// browser starts a headless Chromium for the test and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, "the view page's browser test")
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// TestPageInABrowser opens the page of a hostile rollout in headless
// Chromium at 700 pixels wide: the timeline is rendered in the order of
// the rollout, top to bottom; a folded output is hidden until its summary
// is clicked and then shows; the hostile text is text (no element of it,
// the invisible characters named); old values are red and new ones green;
// nothing is wider than the window; and a screenshot is saved (to
// $ORACLE_VIEW_SHOT too, when set, for a person to look at).
func TestPageInABrowser(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "view.html")
	if err := os.WriteFile(path, []byte(pageOf(t, realRun(t, hostileAgent))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(700, 1000), chromedp.Navigate("file://"+path), chromedp.WaitVisible("#timeline")); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}

	heads := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('ol.timeline > li .head')).map(h => h.innerText.replace(/\s+/g, ' ').replace(/ (\d+ ms|at \+\S+).*$/, ''))`)
	want := []string{"start", "#1 list_counters", "#2 set_counter", "#3 set_counter ✗ tool error: not_found", "#4 add_counter", "#5 set_note", "custom_thing", "answer", "end", "graded"}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("the timeline as rendered (-want +got):\n%s", diff)
	}
	if !eval[bool](t, ctx, `(() => { const tops = Array.from(document.querySelectorAll('ol.timeline > li')).map(li => li.getBoundingClientRect().top); return tops.length > 0 && tops.every((y, i) => i == 0 || y > tops[i-1]); })()`) {
		t.Error("the timeline's entries are not laid out top to bottom in order")
	}
	sections := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('main > section')).map(s => s.id)`)
	if diff := cmp.Diff([]string{"instruction", "timeline", "answer", "checks", "outcome", "state-diff", "files"}, sections); diff != "" {
		t.Errorf("the sections (-want +got):\n%s", diff)
	}

	// call #1's output is long: folded, it opens on a click
	folded := `document.querySelector('#e-2 .part.output details')`
	height := folded + `.getBoundingClientRect().height`
	seen := folded + `.querySelector('pre').checkVisibility()`
	if open, h, vis := eval[bool](t, ctx, folded+`.open`), eval[float64](t, ctx, height), eval[bool](t, ctx, seen); open || h > 40 || vis {
		t.Errorf("call #1's long output is not folded: open %v, %v pixels high, output visible %v", open, h, vis)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`#e-2 .part.output details > summary`)); err != nil {
		t.Fatalf("click the folded output: %v", err)
	}
	if open, h, vis := eval[bool](t, ctx, folded+`.open`), eval[float64](t, ctx, height), eval[bool](t, ctx, seen); !open || h < 100 || !vis {
		t.Errorf("call #1's output did not open on a click: open %v, %v pixels high, output visible %v", open, h, vis)
	}
	if got := eval[string](t, ctx, folded+`.querySelector('pre').innerText`); !strings.Contains(got, `"X-29"`) {
		t.Errorf("the opened output lacks its last member: %.200q", got)
	}

	// the hostile text is text
	if n := eval[int](t, ctx, `document.querySelectorAll('script, img, b, i, em').length`); n != 0 {
		t.Errorf("%d elements came from the rollout's text", n)
	}
	instr := eval[string](t, ctx, `document.querySelector('#instruction pre').innerText`)
	for _, want := range []string{"</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "U+202E", "U+001B", "U+0000"} {
		if !strings.Contains(instr, want) {
			t.Errorf("the instruction as shown lacks %q: %q", want, instr)
		}
	}
	if strings.ContainsRune(instr, '\u202e') {
		t.Error("the right-to-left override reached the page as itself")
	}

	colour := func(sel string) string {
		return eval[string](t, ctx, `getComputedStyle(document.querySelector('`+sel+`')).backgroundColor`)
	}
	if old, fresh := colour("#state-diff del.old"), colour("#state-diff ins.new"); old != "rgb(255, 235, 233)" || fresh != "rgb(218, 251, 225)" {
		t.Errorf("state diff: old value on %s, new value on %s; want red (255, 235, 233) and green (218, 251, 225)", old, fresh)
	}
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 700 {
		t.Errorf("the page is %d pixels wide in a 700-pixel window", w)
	}

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(shot) == 0 {
		t.Fatal("empty screenshot")
	}
	shotPath := filepath.Join(dir, "view.png")
	if p := os.Getenv("ORACLE_VIEW_SHOT"); p != "" {
		shotPath = p
	}
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shotPath, len(shot))
}

// TestPageCSPBlocksAPlantedScript plants an inline script, an event
// handler and an image in the page, as an escaping bug would: the page's
// content security policy keeps all of them from running or loading (no
// dialog, no change to the DOM, the refusal logged). Without the policy
// the same script runs, so the test can fail.
func TestPageCSPBlocksAPlantedScript(t *testing.T) {
	ctx := browser(t)
	clean := pageOf(t, realRun(t, hostileAgent))
	const plant = `<script>document.body.setAttribute('data-planted', '1'); document.title = 'planted'; alert('planted');</script>` +
		`<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="document.body.setAttribute('data-planted', 'img')" onload="document.body.setAttribute('data-planted', 'img')">` +
		`<div id="planted-div" onclick="document.body.setAttribute('data-planted', 'click')">planted</div>`
	planted := strings.Replace(clean, "</main>", plant+"</main>", 1)
	noCSP := strings.Replace(strings.Replace(clean, "</main>", `<script>document.body.setAttribute('data-planted', '1')</script></main>`, 1),
		`<meta http-equiv="Content-Security-Policy"`, `<meta name="x-no-policy"`, 1)
	dir := t.TempDir()
	for name, page := range map[string]string{"planted.html": planted, "control.html": noCSP} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var dialogs atomic.Int32
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: true})
		}
	}); err != nil {
		t.Fatal(err)
	}
	// the console is read until the refusals are seen, or for 10 s
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	messages := chromedp.Console(cctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "planted.html")), chromedp.WaitVisible("#planted-div")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#planted-div")); err != nil {
		t.Fatal(err)
	}
	title := eval[string](t, ctx, `document.title`)
	mark := eval[string](t, ctx, `String(document.body.getAttribute('data-planted'))`)
	if dialogs.Load() != 0 || mark != "null" || title == "planted" {
		t.Errorf("a planted script ran: %d dialogs, body data-planted %s, title %q", dialogs.Load(), mark, title)
	}
	refused := 0
	for m, err := range messages {
		if err != nil {
			break
		}
		if strings.Contains(m.Text, "Content Security Policy") {
			if refused++; refused == 3 { // the script, the image and the handler
				break
			}
		}
	}
	cancel()
	if refused == 0 {
		t.Error("the browser logged no refusal by the content security policy")
	}

	// the control: without the policy the planted script runs
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "control.html")), chromedp.WaitVisible("#timeline")); err != nil {
		t.Fatal(err)
	}
	if mark := eval[string](t, ctx, `String(document.body.getAttribute('data-planted'))`); mark != "1" {
		t.Errorf("without its policy the page did not run the planted script (data-planted %s): the test proves nothing", mark)
	}
}
