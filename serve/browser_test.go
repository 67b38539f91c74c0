package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/poolsim/poolsim/internal/browsertest"
)

// The browser tests drive the real binary: poolsim run gives the figures
// to compare with, poolsim serve the page.

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// poolsim builds the command once per test binary.
func poolsim(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "poolsim-serve-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "poolsim")
		out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/poolsim").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// cli runs the poolsim binary and returns its exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(poolsim(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// summaryValue runs poolsim run --json with the overrides and returns the
// summary key's value exactly as summary.json prints it.
func summaryValue(t *testing.T, scenario, key string, sets ...string) string {
	t.Helper()
	args := []string{"run", scenario, "--out", t.TempDir(), "--json"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	code, out, errOut := cli(t, args...)
	if code != 0 {
		t.Fatalf("poolsim %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("poolsim run --json: %v", err)
	}
	return string(m[key])
}

// startServe runs poolsim serve on a free port and returns the URL it
// prints on its first line; the server stops with the test.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(poolsim(t), append(append([]string{"serve"}, args...), "--addr", "127.0.0.1:0")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("poolsim serve ended with %v after Ctrl-C\nstderr:\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("poolsim serve did not stop within 10 s of Ctrl-C")
		}
	})
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("poolsim serve printed no line: %v\nstderr:\n%s", err, stderr.String())
	}
	go io.Copy(io.Discard, r)
	u := strings.TrimSpace(line)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/") {
		t.Fatalf("first line %q is not the page's URL on 127.0.0.1", line)
	}
	return u
}

// watch records what a page does that it should not: console messages,
// uncaught exceptions, browser log entries, and requests that leave the
// server.
type watch struct {
	origin   string
	mu       sync.Mutex
	problems []string
	requests int
}

func (w *watch) observe(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range e.Args {
			args = append(args, a.Description+string(a.Value))
		}
		w.problems = append(w.problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		desc := d.Text
		if d.Exception != nil {
			desc += " " + d.Exception.Description
		}
		w.problems = append(w.problems, fmt.Sprintf("exception: %s (%s:%d)", desc, d.URL, d.LineNumber))
	case *log.EventEntryAdded:
		w.problems = append(w.problems, fmt.Sprintf("browser log (%s): %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL))
	case *network.EventRequestWillBeSent:
		w.requests++
		if u := e.Request.URL; !strings.HasPrefix(u, w.origin) && !strings.HasPrefix(u, "data:") {
			w.problems = append(w.problems, "request outside the server: "+u)
		}
	}
}

func (w *watch) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) > 0 {
		t.Errorf("the page:\n  %s", strings.Join(w.problems, "\n  "))
	}
	if w.requests == 0 {
		t.Errorf("no request seen: the watch is not listening")
	}
}

// browse opens a headless Chromium on url and returns its context and
// the watch on it.
func browse(t *testing.T, url string) (context.Context, *watch) {
	t.Helper()
	bin := browsertest.Chromium(t)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(bin), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000)}
	for _, f := range browsertest.Flags {
		opts = append(opts, chromedp.Flag(strings.TrimPrefix(f, "--"), true))
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	w := &watch{origin: u.Scheme + "://" + u.Host + "/"}
	if err := chromedp.Listen(ctx, w.observe); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return ctx, w
}

// redraw is what the page says of its last redraw (window.poolsimRedraw).
type redraw struct {
	MS    float64  `json:"ms"`
	SimMS float64  `json:"simMs"`
	Sets  []string `json:"sets"`
	N     int      `json:"n"`
	// The parts of MS: the debounce, the request until the result
	// arrived (the simulation and the transfer), the page's redraw, the
	// paint.
	WaitMS   float64 `json:"waitMs"`
	AnswerMS float64 `json:"answerMs"`
	DrawMS   float64 `json:"drawMs"`
	PaintMS  float64 `json:"paintMs"`
}

// waitRedraw waits for the page's n-th redraw and returns it.
func waitRedraw(t *testing.T, ctx context.Context, n int) redraw {
	t.Helper()
	expr := fmt.Sprintf(`window.poolsimRedraw && window.poolsimRedraw.n >= %d && window.poolsimRedraw`, n)
	r, err := chromedp.Run(ctx, chromedp.Poll[redraw](expr, chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		t.Fatalf("waiting for redraw %d: %v", n, err)
	}
	return r
}

// js evaluates an expression in the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// screenshot saves the page, whole, as a PNG in $POOLSIM_SCREENSHOTS (or
// the test's temporary directory) and logs where.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := os.Getenv("POOLSIM_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// step presses an arrow key on a slider (pool-keepAlive, pool-core,
// workload-phases-0-arrivals-rate, …) n times,
// as a user would drag it: kb.ArrowLeft lowers the value, kb.ArrowRight
// raises it.
func step(t *testing.T, ctx context.Context, slider, key string, n int) {
	t.Helper()
	steps := []chromedp.Action[chromedp.Void]{chromedp.Focus(`#c-` + slider + `-range`)}
	for range n {
		steps = append(steps, chromedp.KeyEvent(key))
	}
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// figureRaw is a headline figure's exact value, as summary.json prints it.
func figureRaw(t *testing.T, ctx context.Context, key string) string {
	return js[string](t, ctx, fmt.Sprintf(`document.querySelector('#answer [data-key=%q]').dataset.raw`, key))
}

// TestBrowserWhatIf is the walk-through in a real browser: load
// tomcat-121, drag keepAlive from 1m to 10s, and see the plateau fall from
// 120 to 20 — the figure poolsim run --set pool.keepAlive=10s gives — with
// the URL and the command holding the change; then type a bad keepAlive
// and see it refused in place with the command line's message. No console
// message, no exception, no request outside the server.
func TestBrowserWhatIf(t *testing.T) {
	browsertest.Chromium(t)
	scenario := filepath.Join("..", "scenarios", "examples", "tomcat-121.yaml")
	wantBase := summaryValue(t, scenario, "pool_size_mean")
	want10s := summaryValue(t, scenario, "pool_size_mean", "pool.keepAlive=10s")
	code, _, badMsg := cli(t, "run", scenario, "--out", t.TempDir(), "--set", "pool.keepAlive=abc")
	if code != 2 {
		t.Fatalf("poolsim run with keepAlive abc: exit %d, want 2", code)
	}
	url := startServe(t, scenario)
	ctx, w := browse(t, url)

	first := waitRedraw(t, ctx, 1)
	if got := figureRaw(t, ctx, "pool_size_mean"); got != wantBase {
		t.Errorf("loaded: pool size %s, poolsim run gives %s", got, wantBase)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#explanation .whatifs')`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the what-ifs never came: %v", err)
	}
	screenshot(t, ctx, "serve-1-loaded.png")

	// 1m → 45s → 30s → 20s → 15s → 10s: five steps of the slider, each a
	// change that aborts the one before.
	step(t, ctx, "pool-keepAlive", kb.ArrowLeft, 5)
	var after redraw
	for n := first.N + 1; ; n++ {
		after = waitRedraw(t, ctx, n)
		if strings.Join(after.Sets, " ") == "pool.keepAlive=10s" {
			break
		}
	}
	t.Logf("keepAlive 1m → 10s: change to redraw %.0f ms (answer %.0f ms, of which the simulation %.0f ms; draw %.0f ms, paint %.0f ms), first load %.0f ms",
		after.MS, after.AnswerMS, after.SimMS, after.DrawMS, after.PaintMS, first.MS)
	if got := figureRaw(t, ctx, "pool_size_mean"); got != want10s {
		t.Errorf("keepAlive 10s: pool size %s, poolsim run --set pool.keepAlive=10s gives %s", got, want10s)
	}
	if got := js[string](t, ctx, `document.querySelector('#answer [data-key=pool_size_mean] dd').firstChild.textContent`); got != "20" {
		t.Errorf("the pool size reads %q, want 20", got)
	}
	if got := js[string](t, ctx, `location.search`); got != "?set=pool.keepAlive%3D10s" {
		t.Errorf("URL query %q", got)
	}
	if got, want := js[string](t, ctx, `document.getElementById('command').textContent`), "poolsim run "+scenario+" --set pool.keepAlive=10s"; !strings.HasPrefix(got, want) {
		t.Errorf("command %q, want %q", got, want)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#explanation .whatifs') && !document.getElementById('explanation').classList.contains('stale')`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the what-ifs of keepAlive 10s never came: %v", err)
	}
	screenshot(t, ctx, "serve-2-keepalive-10s.png")

	// A link holds the view: a fresh page on the same URL shows the same figure.
	link := js[string](t, ctx, `location.href`)
	ctx2, w2 := browse(t, link)
	waitRedraw(t, ctx2, 1)
	if got := figureRaw(t, ctx2, "pool_size_mean"); got != want10s {
		t.Errorf("the link %s shows pool size %s, want %s", link, got, want10s)
	}
	w2.check(t)

	// Bad input: refused beside the control, with the CLI's message; the
	// last good run stays.
	if err := chromedp.Do(ctx, chromedp.SetValue(`#c-pool-keepAlive`, "abc"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('c-pool-keepAlive').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Poll[string](`(e => !e.hidden && e.textContent)(document.getElementById('c-pool-keepAlive-error'))`,
		chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("the bad keepAlive was not refused in place: %v", err)
	}
	if want := strings.TrimSpace(badMsg); msg != want {
		t.Errorf("refused with\n  %q\nthe command line says\n  %q", msg, want)
	}
	if got := js[string](t, ctx, `location.search`); got != "?set=pool.keepAlive%3D10s" {
		t.Errorf("after a refusal the URL is %q, want the last good state", got)
	}
	if got := figureRaw(t, ctx, "pool_size_mean"); got != want10s {
		t.Errorf("after a refusal the page shows pool size %s, want the last good run's %s", got, want10s)
	}
	screenshot(t, ctx, "serve-3-refused.png")
	w.check(t)
}

// TestServeFromConfig: with --from and no scenario, the page runs the
// configuration's pool under the built-in traffic; without either,
// serve is a usage error.
func TestServeFromConfig(t *testing.T) {
	url := startServe(t, "--from", filepath.Join("..", "scenarios", "examples", "conf", "server.xml"))
	resp, err := http.Get(url + "api/base")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var base struct {
		Name    string
		Command string
		Base    struct{ Pool struct{ Preset, Max string } }
	}
	if err := json.NewDecoder(resp.Body).Decode(&base); err != nil {
		t.Fatal(err)
	}
	if base.Name != "from-config" || base.Base.Pool.Preset != "tomcat" || base.Base.Pool.Max != "800" || base.Command != "" {
		t.Errorf("base %+v", base)
	}
	if code, _, errOut := cli(t, "serve"); code != 2 || !strings.Contains(errOut, "serve takes one scenario file, or --from CONFIG") {
		t.Errorf("poolsim serve alone: exit %d, %q", code, errOut)
	}
	if code, _, errOut := cli(t, "serve", "no-such.yaml"); code != 2 || !strings.Contains(errOut, "no-such.yaml") {
		t.Errorf("poolsim serve no-such.yaml: exit %d, %q", code, errOut)
	}
}

// TestBrowserRedrawTimes times, for every bundled scenario, one step of
// the keepAlive slider (core where the constructor fixes keepAlive) from
// the change to the redraw, in the browser. It
// only measures (the machine's load decides the times), so it runs when
// asked: POOLSIM_MEASURE=1.
func TestBrowserRedrawTimes(t *testing.T) {
	if os.Getenv("POOLSIM_MEASURE") == "" {
		t.Skip("a measurement, not a check: set POOLSIM_MEASURE=1 to time every bundled scenario in the browser")
	}
	browsertest.Chromium(t)
	files, _ := filepath.Glob(filepath.Join("..", "scenarios", "examples", "*.yaml"))
	var rows []string
	for _, f := range files {
		// A subtest each, so that each server and browser stop before the
		// next scenario is timed.
		t.Run(filepath.Base(f), func(t *testing.T) {
			url := startServe(t, f)
			ctx, w := browse(t, url)
			first := waitRedraw(t, ctx, 1)
			// Time the change on a page at rest: the first load's
			// explanation and what-ifs done.
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById('status').classList.contains('busy')`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
				t.Fatalf("the first load's explanation never ended: %v", err)
			}
			slider, key := "pool-keepAlive", kb.ArrowLeft
			switch {
			case js[bool](t, ctx, `document.getElementById('c-pool-keepAlive-range').disabled`):
				// The constructor fixes keepAlive (R86, R88): the first slider that moves.
				slider, key = strings.TrimSuffix(strings.TrimPrefix(js[string](t, ctx, `document.querySelector('#controls input[type=range]:not(:disabled)').id`), "c-"), "-range"), kb.ArrowRight
			case js[string](t, ctx, `document.getElementById('c-pool-keepAlive-range').value`) == "0":
				key = kb.ArrowRight // keepAlive 0 (a fixed pool): lengthen it instead
			}
			step(t, ctx, slider, key, 1)
			row := fmt.Sprintf("%-30s first load %5.0f ms", filepath.Base(f), first.MS)
			r, err := chromedp.Run(ctx, chromedp.Poll[redraw](fmt.Sprintf(`(window.poolsimRedraw.n > %d && window.poolsimRedraw) || (document.querySelector('.control.invalid') && {n: -1})`, first.N),
				chromedp.WithPollingTimeout(20*time.Second)))
			switch {
			case err != nil:
				row += fmt.Sprintf("; %s step: %v", slider, err)
			case r.N < 0:
				row += "; " + slider + " step refused: " + js[string](t, ctx, `document.querySelector('.control.invalid .error').textContent`)
			default:
				row += fmt.Sprintf("; %s step (%s): change to redraw %4.0f ms = answer %4.0f (simulation %4.0f) + draw %3.0f + paint %3.0f",
					slider, strings.Join(r.Sets, " "), r.MS, r.WaitMS+r.AnswerMS, r.SimMS, r.DrawMS, r.PaintMS)
			}
			rows = append(rows, row)
			if os.Getenv("POOLSIM_SCREENSHOTS") != "" {
				screenshot(t, ctx, "serve-"+strings.TrimSuffix(filepath.Base(f), ".yaml")+".png")
			}
			w.check(t)
		})
	}
	t.Logf("change to redraw in headless Chromium:\n%s", strings.Join(rows, "\n"))
}
