package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/aem-dev/aem/internal/browsertest"
	"github.com/aem-dev/aem/metrics"
)

// writePage writes the report of dir into a temporary file and returns
// its file:// URL.
func writePage(t *testing.T, dir string, opts Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(path, build(t, dir, opts), "test"); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// shots is where screenshots go: $AEM_SCREENSHOTS when set (scripts that
// refresh the README's pictures set it), else the test's temporary folder.
func shots(t *testing.T) string {
	if d := os.Getenv("AEM_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

func screenshot(t *testing.T, p *browsertest.Page, selector, name string) {
	t.Helper()
	png, err := p.ScreenshotOf(selector)
	if err != nil {
		t.Fatalf("screenshot of %s: %v", selector, err)
	}
	path := filepath.Join(shots(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", path, len(png))
}

// TestReportInBrowser opens the example's report from disk in headless
// Chromium: no console errors, no request but the page itself; the
// explorer opens a dialog and shows its failing field, the cascade arrow
// leads to the root, a root cause links to its dialog, and the search
// filters the list.
func TestReportInBrowser(t *testing.T) {
	p := browsertest.Open(t)
	url := writePage(t, scoreRun(t, example, exampleConfig()), Options{})
	if err := p.Do(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#headline"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, p, "#headline", "report-headline.png")
	visible := func(sel string) bool {
		v, err := browsertest.Eval[bool](p, `(function(){var e=document.querySelector(`+jsString(sel)+`);return !!e && e.offsetParent!==null})()`)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// No dialog is open until one is asked for.
	if visible(".dlg") {
		t.Error("a dialog is open before any was chosen")
	}
	// Open the sales report from the list.
	if err := p.Do(chromedp.Click(chromedp.CSS(`#dlist li[data-id="sales-report-q3"] a`)), chromedp.WaitVisible(chromedp.CSS(`.dlg[data-id="sales-report-q3"]`))); err != nil {
		t.Fatal(err)
	}
	failing, err := browsertest.Eval[string](p, `Array.from(document.querySelectorAll('.dlg[data-id="sales-report-q3"] tr.failf')).map(function(r){return r.innerText}).join("\n")`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(failing, "sales_db.aggregate.metric\tcategory") || !strings.Contains(failing, "0.750") {
		t.Errorf("the open dialog's failing fields are %q, want sales_db.aggregate.metric, a category, held to 0.750", failing)
	}
	screenshot(t, p, `.dlg[data-id="sales-report-q3"]`, "report-dialog.png")
	// The cascade arrow of turn 3 leads to its root, turn 2, in the same
	// dialog, which stays open.
	if err := p.Do(chromedp.Click(chromedp.CSS(`.dlg[data-id="sales-report-q3"] tr.turn.casc a.arrow`))); err != nil {
		t.Fatal(err)
	}
	hash, err := browsertest.Eval[string](p, `location.hash`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(hash, "-t2") || !visible(`.dlg[data-id="sales-report-q3"]`) {
		t.Errorf("after the cascade arrow: hash %q, dialog visible %v; want turn 2 of the open dialog", hash, visible(`.dlg[data-id="sales-report-q3"]`))
	}
	// A root cause's example link opens its dialog.
	if err := p.Do(chromedp.Navigate(url+"#causes"), chromedp.Click(chromedp.CSS(`#causes td.ex a`))); err != nil {
		t.Fatal(err)
	}
	if !visible(".dlg:target, .dlg:has(:target)") {
		t.Error("the first root cause's example link opened no dialog")
	}
	// The search keeps the matching ids.
	if err := p.Do(chromedp.SendKeys(chromedp.CSS("#search"), "weather")); err != nil {
		t.Fatal(err)
	}
	shown, err := browsertest.Eval[string](p, `document.getElementById("shown").textContent`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, "1 of ") {
		t.Errorf("searching 'weather' shows %q, want 1 of the list", shown)
	}
	readable(t, p)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if got := p.Fetched(url); len(got) > 0 {
		t.Errorf("the page requested %q; it must be self-contained", got)
	}
}

// TestReportTrialsInBrowser checks a run of repeated trials: pass^k in the
// headline, and each trial a dialog of its own in the explorer.
func TestReportTrialsInBrowser(t *testing.T) {
	p := browsertest.Open(t)
	url := writePage(t, scoreRun(t, filepath.Join("testdata", "trials.jsonl"), metrics.DefaultConfig()), Options{Dialogs: []string{"greet"}})
	if err := p.Do(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#headline"))); err != nil {
		t.Fatal(err)
	}
	head, err := browsertest.Eval[string](p, `document.getElementById("headline").innerText`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(head, "pass^2 over 4 tasks") {
		t.Errorf("headline %q lacks pass^2 over 4 tasks", head)
	}
	if err := p.Do(chromedp.Click(chromedp.CSS(`#dlist li[data-id="greet"] a`))); err != nil {
		t.Fatal(err)
	}
	title, err := browsertest.Eval[string](p, `document.querySelector(".dlg:target h3").innerText`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "greet · trial 1") || !strings.Contains(title, "task pass^2 0.0%") {
		t.Errorf("opened %q, want greet trial 1 with its task's pass^2", title)
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if got := p.Fetched(url); len(got) > 0 {
		t.Errorf("the page requested %q", got)
	}
}

func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// TestReportSectionsInBrowser renders a report of a generated run (every
// section has data) in Chromium: each chart is drawn, each section is
// laid out, and screenshots of the main views go to $AEM_SCREENSHOTS (the
// README's pictures, scripts/screenshots) or the test's folder.
func TestReportSectionsInBrowser(t *testing.T) {
	p := browsertest.Open(t)
	url := writePage(t, scoreRun(t, generated(t, 400, 1), metrics.DefaultConfig()), Options{})
	if err := p.Do(chromedp.EmulateViewport(1200, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#explorer"))); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"headline", "breakdown", "reasons", "causes", "tools", "latency", "thresholds"} {
		h, err := browsertest.Eval[float64](p, `(function(){var s=document.getElementById("`+id+`");return s?s.getBoundingClientRect().height:0})()`)
		if err != nil {
			t.Fatal(err)
		}
		if h < 100 {
			t.Errorf("section #%s is %v px high", id, h)
		}
	}
	svgs, err := browsertest.Eval[float64](p, `Array.from(document.querySelectorAll("figure svg")).filter(function(s){return s.getBoundingClientRect().width>200}).length`)
	if err != nil {
		t.Fatal(err)
	}
	if svgs != 6 {
		t.Errorf("%v charts drawn, want 6", svgs)
	}
	screenshot(t, p, "#breakdown", "report-breakdown.png")
	screenshot(t, p, "#causes", "report-causes.png")
	screenshot(t, p, "#thresholds", "report-thresholds.png")
	readable(t, p)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if got := p.Fetched(url); len(got) > 0 {
		t.Errorf("the page requested %q", got)
	}
}

// internalNotation matches the anchors' internal notation
// (features.Anchors: n25.5, d-06-03, d2024-06-03, t15:00), which the page
// must write as people do (25.5, June 3, 15:00).
var internalNotation = `/(^|[^\w.])(n-?\d|d-\d\d-\d\d|d\d{4}-\d\d-\d\d|t\d\d:\d\d)/`

// readable checks what the page shows: no internal notation in its text,
// and every chart's text inside its chart.
func readable(t *testing.T, p *browsertest.Page) {
	t.Helper()
	leak, err := browsertest.Eval[string](p, `(function(){var m=document.body.innerText.match(`+internalNotation+`);return m?m[0]:""})()`)
	if err != nil {
		t.Fatal(err)
	}
	if leak != "" {
		t.Errorf("the page shows internal notation %q", leak)
	}
	clipped, err := browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll("figure svg")).flatMap(function(s){
		var b=s.getBoundingClientRect();
		return Array.from(s.querySelectorAll("text")).filter(function(e){
			var r=e.getBoundingClientRect();
			return r.left<b.left-0.5||r.right>b.right+0.5||r.top<b.top-0.5||r.bottom>b.bottom+0.5;
		}).map(function(e){return e.textContent});
	})`)
	if err != nil {
		t.Fatal(err)
	}
	if len(clipped) > 0 {
		t.Errorf("chart labels outside their chart: %q", clipped)
	}
}

// TestReportWordingInBrowser: a reply that leaves out dates, an amount
// and a name says so in people's words ("June 3", "$49.99"), and a
// dialog that scores 1.000 is not tagged "worst".
func TestReportWordingInBrowser(t *testing.T) {
	p := browsertest.Open(t)
	run := scoreRun(t, filepath.Join("testdata", "wording.jsonl"), metrics.DefaultConfig())
	for _, tt := range []struct {
		worst int
		tags  string // the dialog list's tags, in list order
	}{
		{worst: 50, tags: ""},     // every dialog listed: no tag says "worst"
		{worst: 1, tags: "worst"}, // the failing dialog was picked for its score
		{worst: 2, tags: ""},      // both listed again
	} {
		url := writePage(t, run, Options{Worst: tt.worst})
		if err := p.Do(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#headline"))); err != nil {
			t.Fatal(err)
		}
		tags, err := browsertest.Eval[string](p, `Array.from(document.querySelectorAll("#dlist .tag")).map(function(e){return e.textContent}).join(" ")`)
		if err != nil {
			t.Fatal(err)
		}
		if tags != tt.tags {
			t.Errorf("--worst %d: tags %q, want %q", tt.worst, tags, tt.tags)
		}
	}
	if err := p.Do(chromedp.Click(chromedp.CSS(`#dlist li[data-id="sale-dates"] a`)), chromedp.WaitVisible(chromedp.CSS(`.dlg[data-id="sale-dates"]`))); err != nil {
		t.Fatal(err)
	}
	notes, err := browsertest.Eval[string](p, `Array.from(document.querySelectorAll('.dlg[data-id="sale-dates"] table.clauses .note')).map(function(e){return e.innerText}).join("\n")`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"not covered: the reply does not state “June 3” or “June 7”",
		"not covered: the reply does not state “$49.99”",
		"not covered: the reply does not state “25.5”; it does not mention “Boston”",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("the clauses' notes lack %q:\n%s", want, notes)
		}
	}
	readable(t, p)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
