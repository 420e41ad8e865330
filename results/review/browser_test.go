package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/aem-dev/aem/internal/browsertest"
)

// TestLabellingPageInBrowser opens the labelling page from disk in
// headless Chromium, labels two items (a click and a key), writes a note,
// reloads (the labels are kept), downloads the labels and reads the
// download back with Read: the labels are there, the rest unlabelled.
func TestLabellingPageInBrowser(t *testing.T) {
	p := browsertest.Open(t)
	rd := lexicalRun(t, 40)
	items, _, err := Select(context.Background(), rd, Options{Band: DefaultBand, Limit: 12})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jsonl, page := filepath.Join(dir, File), filepath.Join(dir, "review.html")
	if err := Write(jsonl, items); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(page, jsonl, items); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	downloads := t.TempDir()
	if _, err := chromedp.CallBrowser(p.Ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatal(err)
	}
	first, second := `.card[data-id="r0001"]`, `.card[data-id="r0002"]`
	if err := p.Do(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(first)),
		chromedp.Click(chromedp.CSS(first+" button.same")),
		chromedp.SendKeys(chromedp.CSS(first+" input.note"), "same city"),
		chromedp.Click(chromedp.CSS(second+" pre.gold")), // focus the second card
	); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(chromedp.KeyEvent("n")); err != nil {
		t.Fatal(err)
	}
	done := func() string {
		s, err := browsertest.Eval[string](p, `document.getElementById("done").textContent`)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := done(); got != "2" {
		t.Errorf("judged counter %q after two labels, want 2", got)
	}
	// Reload: the labels come back from the browser's storage. Chromium
	// commits a page's storage writes on another thread; under load a
	// reload right after them came back empty (2 runs in 10), so the
	// reload is repeated until they are there, for up to 10 s.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := p.Do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(first))); err != nil {
			t.Fatal(err)
		}
		got := done()
		if got == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("judged counter %q after a reload, want 2 (labels lost)", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := p.Do(chromedp.Click(chromedp.CSS("#download"))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(downloads, "review-labelled.jsonl")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if info, err := os.Stat(path); err == nil && info.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(downloads)
			t.Fatalf("no download at %s (folder holds %v)", path, entries)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let the browser finish writing
	got, err := Read(path)
	if err != nil {
		t.Fatalf("the download does not read back: %v", err)
	}
	if len(got) != len(items) {
		t.Fatalf("downloaded %d items, exported %d", len(got), len(items))
	}
	for i, it := range got {
		switch {
		case i == 0 && (it.HumanLabel == nil || !*it.HumanLabel || it.Note != "same city"):
			t.Errorf("r0001 downloaded as %v %q, want true with its note", it.HumanLabel, it.Note)
		case i == 1 && (it.HumanLabel == nil || *it.HumanLabel):
			t.Errorf("r0002 downloaded as %v, want false", it.HumanLabel)
		case i > 1 && it.HumanLabel != nil:
			t.Errorf("%s labelled %v without a click", it.ID, *it.HumanLabel)
		}
		if it.Key() != items[i].Key() || it.Gold != items[i].Gold {
			t.Errorf("item %d changed: %+v", i, it)
		}
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	var fetched []string
	for _, u := range p.Fetched(url) {
		if !strings.HasPrefix(u, "blob:") { // the download itself
			fetched = append(fetched, u)
		}
	}
	if len(fetched) > 0 {
		t.Errorf("the page requested %q", fetched)
	}
	shot, err := p.ScreenshotOf(first)
	if err == nil {
		out := filepath.Join(t.TempDir(), "review-card.png")
		if d := os.Getenv("AEM_SCREENSHOTS"); d != "" {
			out = filepath.Join(d, "review-card.png")
		}
		os.WriteFile(out, shot, 0o644)
		t.Logf("screenshot %s", out)
	}
}
