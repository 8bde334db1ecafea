//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browser is one headless Chromium (Debian's, installed by hack/install.sh)
// with its own profile, so two of them are two users' sessions.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
	who  string
}

// chromiumPath is Debian's Chromium; CHROMIUM overrides it.
func chromiumPath(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	require.NoError(t, err, "Debian's chromium is not installed (hack/install.sh installs it)")
	return p
}

// newBrowser starts Chromium for who (a name for its screenshots) and
// ends it with the test. The machine has no internet, so every background
// fetch Chromium would make is switched off rather than left to fail.
func newBrowser(t *testing.T, base, who string) *browser {
	t.Helper()
	profile, err := os.MkdirTemp("", "chromium-profile-")
	require.NoError(t, err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("ignore-certificate-errors-spki-list", consoleTLS.spki),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1440, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	b := &browser{t: t, ctx: ctx, base: strings.TrimSuffix(base, "/"), who: who}
	chromedp.ListenTarget(ctx, b.logPage)
	require.NoError(t, chromedp.Run(ctx), "starting chromium")
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		removeProfile(t, profile)
	})
	return b
}

// removeProfile removes Chromium's profile once its last helper process
// stopped writing there: those outlive the browser by a moment, and a
// t.TempDir removed at once failed the test with "directory not empty".
func removeProfile(t *testing.T, dir string) {
	var err error
	for range 20 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("removing chromium's profile %s: %v", dir, err)
}

// logPage puts the page's console errors and uncaught exceptions in the
// test's log, where a failing step's cause usually is.
func (b *browser) logPage(ev interface{}) {
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		b.t.Logf("%s: page exception: %s", b.who, e.ExceptionDetails.Error())
	case *runtime.EventConsoleAPICalled:
		if e.Type != runtime.APITypeError && e.Type != runtime.APITypeWarning {
			return
		}
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		b.t.Logf("%s: console.%s: %s", b.who, e.Type, strings.Join(parts, " "))
	}
}

// step runs actions within timeout; on failure it saves a screenshot and
// the page's text, then fails the test naming what.
func (b *browser) step(what string, timeout time.Duration, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.screenshot("failed-" + what)
		b.t.Fatalf("%s: %s: %v\npage text:\n%s", b.who, what, err, b.text())
	}
}

// text is the page's visible text, for failure messages.
func (b *browser) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	var s string
	_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body ? document.body.innerText : ''`, &s))
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	return s
}

// open loads the console at fragment (a route such as "#/vms").
func (b *browser) open(fragment string) {
	b.t.Helper()
	b.step("open "+fragment, 30*time.Second, chromedp.Navigate(b.base+"/"+fragment))
}

// route moves the app to fragment without reloading it, as a link does.
func (b *browser) route(fragment string) {
	b.t.Helper()
	b.step("route to "+fragment, 10*time.Second, chromedp.Evaluate(fmt.Sprintf(`location.hash = %q`, fragment), nil))
}

// waitJS polls a JavaScript expression until it is truthy.
func (b *browser) waitJS(what, expr string, timeout time.Duration) {
	b.t.Helper()
	var ok bool
	b.step(what, timeout+5*time.Second, chromedp.Poll(expr, &ok, chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
}

// eval evaluates expr and decodes its value into out.
func (b *browser) eval(expr string, out interface{}) {
	b.t.Helper()
	b.step("evaluate "+expr, 30*time.Second, chromedp.Evaluate(expr, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}

// setField sets a React-controlled input or select the way a user's edit
// does: through the element's own value setter, then the event React
// listens for, so the app's state follows.
func (b *browser) setField(selector, value string) {
	b.t.Helper()
	js := fmt.Sprintf(`(() => {
  const el = document.querySelector(%q);
  if (!el) return 'no element ' + %q;
  const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype
    : el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, %q);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  return el.value === %q ? '' : 'the value stayed ' + el.value;
})()`, selector, selector, value, value)
	var problem string
	b.eval(js, &problem)
	require.Empty(b.t, problem, "setting %s to %s", selector, value)
}

// click clicks the element selector names once it is visible.
func (b *browser) click(selector string) {
	b.t.Helper()
	b.step("click "+selector, 30*time.Second, chromedp.WaitVisible(selector, chromedp.ByQuery), chromedp.Click(selector, chromedp.ByQuery))
}

// attr reads one attribute of the first element selector matches; "" when
// there is none.
func (b *browser) attr(selector, name string) string {
	b.t.Helper()
	var v string
	b.eval(fmt.Sprintf(`(document.querySelector(%q)?.getAttribute(%q)) ?? ''`, selector, name), &v)
	return v
}

var artifactName = regexp.MustCompile(`[^a-z0-9-]+`)

// artifactsDir is where the browser tests leave their screenshots:
// VIRTFLOW_ARTIFACTS, or .artifacts/console in the checkout.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("VIRTFLOW_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", ".artifacts")
	}
	dir = filepath.Join(dir, "console")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	return abs
}

// screenshot saves the viewport as <test>-<who>-<name>.png.
func (b *browser) screenshot(name string) {
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		b.t.Logf("%s: no screenshot %s: %v", b.who, name, err)
		return
	}
	file := strings.Trim(artifactName.ReplaceAllString(strings.ToLower(b.t.Name()+"-"+b.who+"-"+name), "-"), "-") + ".png"
	path := filepath.Join(artifactsDir(b.t), file)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("%s: writing %s: %v", b.who, path, err)
		return
	}
	b.t.Logf("screenshot: %s", path)
}

// login logs in on the login page with token, as a person pastes it, and
// waits for the masthead to name the user.
func (b *browser) login(token, user string) {
	b.t.Helper()
	b.open("")
	b.step("login page", time.Minute, chromedp.WaitVisible(`#token`, chromedp.ByQuery))
	b.step("type the token", 30*time.Second, chromedp.SendKeys(`#token`, token, chromedp.ByQuery))
	b.screenshot("login")
	b.click(`button[type=submit]`)
	b.waitJS("logged in as "+user, fmt.Sprintf(`(document.querySelector('[data-testid=user]')?.textContent ?? '') === %q`, user), 30*time.Second)
}

// fetchAs sends a request from the page, with the session's cookie and
// CSRF header as the app sends them, and returns status and body.
func (b *browser) fetchAs(method, path string) (int, string) {
	b.t.Helper()
	js := fmt.Sprintf(`(async () => {
  const csrf = decodeURIComponent((document.cookie.split('; ').find((c) => c.startsWith('virtflow-csrf=')) ?? '').split('=').slice(1).join('='));
  const r = await fetch(%q, { method: %q, headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: %q });
  return JSON.stringify({ status: r.status, body: await r.text() });
})()`, path, method, "{}")
	var out string
	b.eval(js, &out)
	var res struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	require.NoError(b.t, json.Unmarshal([]byte(out), &res))
	return res.Status, res.Body
}
