package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// InstallHint says how to get a browser when none is found.
const InstallHint = "install Chromium: apt-get update && apt-get install -y chromium (scripts/setup does it when run as root), or set AEM_CHROMIUM to a Chromium or Chrome binary"

// Find returns the browser binary: $AEM_CHROMIUM, else the first of
// chromium, chromium-browser, google-chrome on PATH.
func Find() (string, error) {
	if p := os.Getenv("AEM_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH: %s", InstallHint)
}

// Page is one browser tab with what it logged and requested.
type Page struct {
	// Ctx runs chromedp actions in the tab.
	Ctx context.Context

	mu       sync.Mutex
	errors   []string
	requests []string
}

// Open starts headless Chromium with a fresh profile in a temporary
// directory and opens a tab; the browser is closed when the test ends.
// Without a browser the test is skipped, saying how to install one.
func Open(t testing.TB) *Page {
	t.Helper()
	bin, err := Find()
	if err != nil {
		t.Skip(err.Error())
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	p := &Page{Ctx: ctx}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatalf("starting Chromium (%s): %v", bin, err)
	}
	return p
}

func (p *Page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p.errors = append(p.errors, "console."+string(e.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		msg := e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
		p.errors = append(p.errors, "exception: "+msg)
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			p.errors = append(p.errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, e.Request.URL)
	}
}

// Errors returns the console errors, uncaught exceptions and error log
// entries so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Requests returns the URL of every request the tab made so far,
// navigations included.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Fetched returns the requests other than those for the page's own file
// (page) and inline data: URLs: what a self-contained page must not make.
func (p *Page) Fetched(page string) []string {
	var out []string
	for _, u := range p.Requests() {
		if u == page || strings.HasPrefix(u, page+"#") || strings.HasPrefix(u, "data:") {
			continue
		}
		out = append(out, u)
	}
	return out
}

// Do runs chromedp actions in the tab, with a time limit.
func (p *Page) Do(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(p.Ctx, time.Minute)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// Eval evaluates a JavaScript expression in the page and returns its value.
func Eval[T any](p *Page, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// Screenshot returns a PNG of the whole page (what the viewport would show scrolled from top to bottom).
func (p *Page) Screenshot() ([]byte, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.FullScreenshot(100))
}

// ScreenshotOf returns a PNG of the first element matching the CSS
// selector.
func (p *Page) ScreenshotOf(selector string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(selector)))
}
