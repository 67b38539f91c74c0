package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/browsertest"
)

// chromium returns the headless browser (see browsertest.Chromium).
func chromium(t *testing.T) string { return browsertest.Chromium(t) }

// probe is injected at the top of <head> of a copy of the page: a
// Content-Security-Policy that forbids every fetch except data: images
// (so any outside reference is blocked and reported), and a script that
// records load errors and policy violations, and after the load event
// writes them with every image's natural size into <pre id="probe">.
const probe = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'" />
<script>
(function () {
  var errors = [], violations = [];
  window.addEventListener('error', function (e) {
    var t = e.target || {};
    errors.push(String(e.message || 'load error') + ' ' + String(t.src || t.href || ''));
  }, true);
  document.addEventListener('securitypolicyviolation', function (e) {
    violations.push(e.violatedDirective + ' ' + e.blockedURI);
  });
  window.addEventListener('load', function () {
    var imgs = [];
    for (var i = 0; i < document.images.length; i++) {
      var im = document.images[i];
      imgs.push({w: im.naturalWidth, h: im.naturalHeight, complete: im.complete});
    }
    var out = document.createElement('pre');
    out.id = 'probe';
    out.textContent = JSON.stringify({title: document.title, images: imgs, errors: errors, violations: violations});
    document.body.appendChild(out);
  });
})();
</script>
`

type probeResult struct {
	Title  string `json:"title"`
	Images []struct {
		W, H     int
		Complete bool
	} `json:"images"`
	Errors     []string `json:"errors"`
	Violations []string `json:"violations"`
	Console    []string `json:"-"` // console messages Chromium logged
}

var (
	probeOut    = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)
	consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)
)

// loadInChromium writes page (with the probe) to a file, loads it with
// headless Chromium from file:// and returns what the probe saw.
func loadInChromium(t *testing.T, bin string, page []byte) probeResult {
	t.Helper()
	i := bytes.Index(page, []byte("<head>"))
	if i < 0 {
		t.Fatal("page has no <head>")
	}
	i += len("<head>")
	probed := append(append(append([]byte(nil), page[:i]...), probe...), page[i:]...)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, probed, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string(nil), browsertest.Flags...),
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=10000", // let the load event and the probe run before the dump
		"--dump-dom", "file://"+file)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) } // the whole browser
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\nstderr:\n%s", err, tail(stderr.String(), 2000))
	}
	m := probeOut.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("probe output missing from the dumped DOM (page did not load?)\nstderr:\n%s", tail(stderr.String(), 2000))
	}
	var res probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		t.Fatalf("probe output %q: %v", m[1], err)
	}
	res.Console = consoleLine.FindAllString(stderr.String(), -1)
	return res
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// problems lists what is wrong with a loaded page.
func (r probeResult) problems() []string {
	var p []string
	for i, im := range r.Images {
		if im.W <= 0 || im.H <= 0 || !im.Complete {
			p = append(p, fmt.Sprintf("image %d not decoded (naturalWidth %d)", i+1, im.W))
		}
	}
	for _, e := range r.Errors {
		p = append(p, "error: "+e)
	}
	for _, v := range r.Violations {
		p = append(p, "blocked fetch: "+v)
	}
	for _, c := range r.Console {
		p = append(p, "console: "+c)
	}
	return p
}

// TestBrowserLoadsReport loads a real three-scenario report in headless
// Chromium, offline, under a policy that blocks every fetch: it must load
// with no error, no blocked fetch, no console message, and every image
// decoded at its size.
func TestBrowserLoadsReport(t *testing.T) {
	bin := chromium(t)
	r := sampleReport(t, 3)
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	res := loadInChromium(t, bin, buf.Bytes())
	if res.Title != r.Title {
		t.Errorf("document title %q, want %q", res.Title, r.Title)
	}
	if want := 3*2 + 5; len(res.Images) != want {
		t.Errorf("%d images in the page, want %d", len(res.Images), want)
	}
	for i, im := range res.Images {
		if im.W != 1200 || im.H != 700 {
			t.Errorf("image %d decoded as %d×%d, want 1200×700", i+1, im.W, im.H)
		}
	}
	if p := res.problems(); len(p) > 0 {
		t.Errorf("page problems in the browser:\n  %s", strings.Join(p, "\n  "))
	}
}

// TestBrowserCheckCatches runs the same probe on a page with a broken
// image, an outside image and a console message: the check must see all
// three, or it could not fail.
func TestBrowserCheckCatches(t *testing.T) {
	bin := chromium(t)
	page := []byte(`<!DOCTYPE html><html><head><title>bad</title></head><body>` +
		`<img src="data:image/png;base64,AAAA" alt="broken" />` +
		`<img src="http://example.invalid/chart.png" alt="outside" />` +
		`<script>console.error("boom")</script></body></html>`)
	res := loadInChromium(t, bin, page)
	p := strings.Join(res.problems(), "\n")
	for _, want := range []string{"image 1 not decoded", "image 2 not decoded", "blocked fetch: img-src http://example.invalid/chart.png", "console: ", "boom"} {
		if !strings.Contains(p, want) {
			t.Errorf("problems do not mention %q:\n%s", want, p)
		}
	}
}
