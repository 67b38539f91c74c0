package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/plots"
)

// decayTimeline is a small but realistic timeline (CONTRACT.md §2 columns):
// a pool of core 10 that a burst at 2 min grows to peak threads, then decays
// by keepAlive expiry toward plateau (R78), sampled every second for 20 min.
func decayTimeline(t testing.TB, peak, plateau float64, rejectedInBurst int) *plots.Timeline {
	t.Helper()
	var b strings.Builder
	b.WriteString("t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected,core,max,wait_p99_s,run_state\n")
	sub, done, rej := 0, 0, 0
	for s := 1; s <= 1200; s++ {
		pool, busy, queue := 10.0, 0.0, 0.0
		wait := "0"
		switch {
		case s >= 120 && s < 150: // burst: all busy, queue filling
			pool, busy, queue = peak, peak, float64(s-120)*5
			wait = fmt.Sprintf("%.3f", float64(s-120)*0.4)
			sub += int(peak)
			if s == 140 {
				rej += rejectedInBurst
			}
		case s >= 150: // decay: exponential toward the plateau
			pool = math.Round(plateau + (peak-plateau)*math.Exp(-float64(s-150)/90))
			busy = 1
		}
		sub += 2
		done = sub - int(busy) - int(queue) - rej
		if s%5 == 0 {
			wait = "" // no task started in this interval
		}
		timed, untimed := pool-busy, 0.0
		if pool <= 10 {
			timed, untimed = 0, pool-busy
		}
		fmt.Fprintf(&b, "%d,%g,%g,%g,%g,%g,%d,%d,%d,10,200,%s,RUNNING\n", s, pool, busy, timed, untimed, queue, sub, done, rej, wait)
	}
	tl, err := plots.ReadTimeline(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("test timeline: %v", err)
	}
	return tl
}

const yamlText = `name: tomcat-idle-workers
description: "121 TIMED_WAITING workers at a quiet hour <seed> & friends"
seed: 1
duration: 2h
pool:
  preset: tomcat
  core: 10
  max: 800
  keepAlive: 60s
workload:
  arrivals: {process: constant, rate: 2/s}
  service: {dist: constant, mean: 5ms}
`

// sampleReport builds a report of n scenarios with real charts.
func sampleReport(t testing.TB, n int) Report {
	t.Helper()
	r := Report{Title: "Idle workers: keepAlive study"}
	for i := range n {
		plateau := 121.0 / float64(i+1)
		tl := decayTimeline(t, 200, plateau, 30*(i+1))
		name := fmt.Sprintf("keepAlive %ds", 60/(i+1))
		var thread, queue bytes.Buffer
		opt := plots.Options{Title: name, Events: []plots.Event{{AtS: 600, Label: "set core=20"}}}
		if err := plots.ThreadTimeline(&thread, tl, opt); err != nil {
			t.Fatal(err)
		}
		if err := plots.QueueRejections(&queue, tl, opt); err != nil {
			t.Fatal(err)
		}
		summary, err := SummaryFromJSON([]byte(fmt.Sprintf(`{"submitted": %d, "rejected": %d, "largest_pool_size": 200, "final_pool_size": %g, "wait_p99_s": 1.25e-3, "seed": 1, "note": "a < b & c"}`,
			int(tl.Submitted[tl.Len()-1]), int(tl.Rejected[tl.Len()-1]), tl.PoolSize[tl.Len()-1])))
		if err != nil {
			t.Fatal(err)
		}
		r.Scenarios = append(r.Scenarios, Scenario{
			Name:     name,
			YAML:     strings.Replace(yamlText, "60s", fmt.Sprintf("%ds", 60/(i+1)), 1),
			Summary:  summary,
			Explain:  "The pool grew to 200 in the burst; FIFO handoff keeps ≈ λ·K workers alive (R78).\n<script>alert('not a script')</script>\n",
			Images:   []Image{{thread.Bytes(), "Threads over time"}, {queue.Bytes(), "Queue & rejections"}},
			Timeline: tl,
		})
	}
	return r
}

// TestWriteSelfContained: the page parses as XML, references nothing but
// its own data: images and #fragments, embeds every image byte for byte,
// and shows YAML and explain text exactly.
func TestWriteSelfContained(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d scenarios", n), func(t *testing.T) {
			r := sampleReport(t, n)
			var buf bytes.Buffer
			if err := Write(&buf, r); err != nil {
				t.Fatalf("Write: %v", err)
			}
			doc, err := parsePage(buf.Bytes())
			if err != nil {
				t.Fatalf("page is not well-formed: %v", err)
			}
			if probs := doc.selfContainedProblems(); len(probs) > 0 {
				t.Errorf("page is not self-contained:\n  %s", strings.Join(probs, "\n  "))
			}
			// Every scenario's images are embedded exactly, then (n > 1) the
			// five overlays: pool size, busy, queue, rejections, wait p99.
			wantImgs := 2 * n
			if n > 1 {
				wantImgs += 5
			}
			if len(doc.images) != wantImgs {
				t.Errorf("%d <img>, want %d", len(doc.images), wantImgs)
			}
			var want [][]byte
			for _, s := range r.Scenarios {
				for _, im := range s.Images {
					want = append(want, im.PNG)
				}
			}
			got := doc.images
			if n > 1 {
				got = got[5:] // the comparison section comes first
			}
			for i := range want {
				if i >= len(got) || !bytes.Equal(got[i], want[i]) {
					t.Errorf("image %d not embedded byte for byte", i)
				}
			}
			// Text shown exactly (escaped on the way out, intact on the way in).
			for i, s := range r.Scenarios {
				if i >= len(doc.codes) || doc.codes[i] != s.YAML {
					t.Errorf("scenario %d YAML not shown exactly", i)
				}
				if i >= len(doc.explains) || doc.explains[i] != strings.TrimRight(s.Explain, "\n") {
					t.Errorf("scenario %d explain text not shown exactly", i)
				}
			}
			if n > 1 && !strings.Contains(buf.String(), `<section id="comparison">`) {
				t.Errorf("no comparison section for %d scenarios", n)
			}
			if n == 1 && strings.Contains(buf.String(), `id="comparison"`) {
				t.Errorf("comparison section for a single scenario")
			}
		})
	}
}

func TestWriteDeterministic(t *testing.T) {
	r := sampleReport(t, 2)
	var a, b bytes.Buffer
	if err := Write(&a, r); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, sampleReport(t, 2)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two writes of the same report differ")
	}
}

func TestWriteErrors(t *testing.T) {
	good := sampleReport(t, 1)
	png := good.Scenarios[0].Images[0].PNG
	tests := []struct {
		name string
		r    Report
		want string
	}{
		// Nothing to report.
		{"empty", Report{}, "report: no scenarios to report"},
		// A scenario needs a name (it titles the section and the legend).
		{"no name", Report{Scenarios: []Scenario{{YAML: "x"}}}, "report: scenario 1 has no name"},
		// Two scenarios with one name would be ambiguous.
		{"dup", Report{Scenarios: []Scenario{{Name: "a"}, {Name: "a"}}}, `report: two scenarios named "a"`},
		// An image that is not a PNG.
		{"not png", Report{Scenarios: []Scenario{{Name: "a", Images: []Image{{[]byte("GIF89a"), "x"}}}}}, `report: scenario a: image 1 ("x"): not a PNG`},
		// Comparison charts for one scenario make no sense.
		{"lonely comparison", Report{Scenarios: []Scenario{{Name: "a"}}, Comparisons: []Image{{png, "c"}}}, "report: comparison charts given for a single scenario"},
		// A bad comparison image.
		{"bad comparison", Report{Scenarios: []Scenario{{Name: "a"}, {Name: "b"}}, Comparisons: []Image{{nil, "c"}}}, `report: comparison image 1 ("c"): not a PNG`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tc.r)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prefix %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
		})
	}
}

func TestSummaryFromJSON(t *testing.T) {
	got, err := SummaryFromJSON([]byte(`{"submitted": 7200, "wait_p99_s": 1.25e-3, "note": "a \"b\"", "ok": true, "nil": null, "list": [1, 2], "seed": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []KV{
		{"submitted", "7200"},     // integers as written
		{"wait_p99_s", "1.25e-3"}, // number text kept exactly
		{"note", `a "b"`},         // strings unquoted
		{"ok", "true"},            // literals as JSON
		{"nil", "null"},
		{"list", "[1,2]"}, // nested values compacted
		{"seed", "1"},     // order as in the file
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	bad := []struct{ in, want string }{
		{`[1]`, "want a JSON object"},            // not an object
		{`{"a": 1} {}`, "data after the object"}, // two values
		{`{"a": }`, `value of "a"`},              // broken value
		{``, "report: read summary: EOF"},        // empty
		{`{"a": 1`, "report: read summary: EOF"}, // unterminated
	}
	for _, b := range bad {
		if _, err := SummaryFromJSON([]byte(b.in)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("SummaryFromJSON(%q) err = %v, want %q", b.in, err, b.want)
		}
	}
}

// page is what the tests read back from report.html.
type parsed struct {
	problems []string // references found while parsing
	ids      map[string]bool
	hrefs    []string
	images   [][]byte // decoded data: images in document order
	codes    []string // text of <pre><code> (scenario YAML)
	explains []string // text of <pre class="explain">
	raw      []byte
}

// parsePage reads the page strictly as XML, noting every element,
// attribute and style that could make the browser fetch something.
func parsePage(b []byte) (*parsed, error) {
	p := &parsed{ids: map[string]bool{}, raw: b}
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	var stack []xml.StartElement
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tk)
			text.Reset()
			switch tk.Name.Local {
			case "script", "link", "iframe", "frame", "object", "embed", "base", "form", "audio", "video", "source", "track", "svg", "math", "applet", "portal":
				p.problems = append(p.problems, "element <"+tk.Name.Local+">")
			}
			for _, a := range tk.Attr {
				name, val := strings.ToLower(a.Name.Local), a.Value
				switch {
				case name == "id":
					p.ids[val] = true
				case name == "href":
					p.hrefs = append(p.hrefs, val)
					if !strings.HasPrefix(val, "#") {
						p.problems = append(p.problems, "href "+val)
					}
				case name == "src":
					const prefix = "data:image/png;base64,"
					if !strings.HasPrefix(val, prefix) {
						p.problems = append(p.problems, "src "+short(val))
						continue
					}
					img, err := base64.StdEncoding.DecodeString(val[len(prefix):])
					if err != nil {
						p.problems = append(p.problems, "src: bad base64: "+err.Error())
					}
					p.images = append(p.images, img)
				case name == "srcset", name == "action", name == "formaction", name == "poster", name == "data",
					name == "background", name == "codebase", name == "cite", name == "manifest", name == "ping":
					p.problems = append(p.problems, "attribute "+name+"="+short(val))
				case strings.HasPrefix(name, "on"):
					p.problems = append(p.problems, "event handler "+name)
				case name == "style" && styleFetches(val):
					p.problems = append(p.problems, "style attribute "+short(val))
				case name == "http-equiv" && strings.EqualFold(val, "refresh"):
					p.problems = append(p.problems, "meta refresh")
				}
			}
		case xml.CharData:
			text.Write(tk)
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case top.Name.Local == "style" && styleFetches(text.String()):
				p.problems = append(p.problems, "style sheet with url() or @import")
			case top.Name.Local == "code" && len(stack) > 0 && stack[len(stack)-1].Name.Local == "pre":
				p.codes = append(p.codes, text.String())
			case top.Name.Local == "pre" && hasClass(top, "explain"):
				p.explains = append(p.explains, text.String())
			}
		}
	}
	return p, nil
}

// selfContainedProblems lists everything that points outside the page.
func (p *parsed) selfContainedProblems() []string {
	probs := append([]string(nil), p.problems...)
	for _, h := range p.hrefs {
		if strings.HasPrefix(h, "#") && !p.ids[h[1:]] {
			probs = append(probs, "link to missing fragment "+h)
		}
	}
	low := strings.ToLower(string(p.raw))
	for _, s := range []string{"http://", "https://", "//cdn", "url(", "@import", "<script", "javascript:"} {
		if strings.Contains(low, s) {
			probs = append(probs, fmt.Sprintf("text %q in the page", s))
		}
	}
	return probs
}

func styleFetches(css string) bool {
	c := strings.ToLower(css)
	return strings.Contains(c, "url(") || strings.Contains(c, "@import") || strings.Contains(c, "image-set(")
}

func hasClass(e xml.StartElement, class string) bool {
	for _, a := range e.Attr {
		if a.Name.Local == "class" && strings.Contains(" "+a.Value+" ", " "+class+" ") {
			return true
		}
	}
	return false
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// TestSelfContainedCheckCatches shows the checker fails on pages that
// reference the outside world.
func TestSelfContainedCheckCatches(t *testing.T) {
	wrap := func(body string) string {
		return `<!DOCTYPE html><html><head><title>t</title></head><body>` + body + `</body></html>`
	}
	tests := []struct {
		name, page, want string
	}{
		// An image from the network.
		{"http img", wrap(`<img src="http://example.com/a.png" />`), "src http://example.com/a.png"},
		// A relative image file next to the page.
		{"relative img", wrap(`<img src="chart.png" />`), "src chart.png"},
		// An external stylesheet.
		{"link", wrap(`<link rel="stylesheet" href="https://cdn.example/x.css" />`), "element <link>"},
		// A script, even inline.
		{"script", wrap(`<script>1</script>`), "element <script>"},
		// CSS fetching a background.
		{"css url", wrap(`<p style="background: url(x.png)">x</p>`), "style attribute"},
		// A style sheet importing another.
		{"import", wrap(`<style>@import "x.css";</style>`), "style sheet with url() or @import"},
		// A link to a fragment that does not exist.
		{"dangling fragment", wrap(`<a href="#nowhere">x</a>`), "link to missing fragment #nowhere"},
		// A link out of the page.
		{"external link", wrap(`<a href="https://example.com/">x</a>`), "href https://example.com/"},
		// An event handler attribute.
		{"onload", wrap(`<body onload="x()"></body>`), "event handler onload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parsePage([]byte(tc.page))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			probs := strings.Join(p.selfContainedProblems(), "\n")
			if !strings.Contains(probs, tc.want) {
				t.Errorf("problems %q do not mention %q", probs, tc.want)
			}
		})
	}
	if _, err := parsePage([]byte(`<html><body><img src="x"></body></html>`)); err == nil {
		t.Errorf("an unclosed void element parsed as XML; the well-formedness check is toothless")
	}
}

// TestOverlayEvents: an event every compared scenario has is marked once as
// it is; one scenario's own events carry its name, so a resize in the LIFO
// run is not mistaken for one in the FIFO run.
func TestOverlayEvents(t *testing.T) {
	shutdown := plots.Event{AtS: 600, Label: "shutdown"}
	ss := []Scenario{
		{Name: "fifo", Events: []plots.Event{{AtS: 60, Label: "set core=20"}, shutdown}},
		{Name: "lifo", Events: []plots.Event{shutdown, {AtS: 60, Label: "set core=30"}}},
		{Name: "plain", Events: []plots.Event{shutdown, shutdown}},
	}
	got := overlayEvents(ss)
	want := []plots.Event{
		{AtS: 60, Label: "fifo: set core=20"},
		shutdown,
		{AtS: 60, Label: "lifo: set core=30"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("overlay events\n got %+v\nwant %+v", got, want)
	}
	if got := overlayEvents(ss[:1]); !reflect.DeepEqual(got, ss[0].Events) {
		t.Fatalf("a single scenario's events are common to all: got %+v", got)
	}
}
