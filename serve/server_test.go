package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/serve"
	"github.com/poolsim/poolsim/sim"
)

// small is a scenario that runs in milliseconds: a peak fills a bounded
// queue and grows the pool past core, then light traffic keeps part of it.
const small = `name: small
description: a peak, then light traffic
duration: 2m
warmup: 40s
sample: 1s
pool: {core: 2, max: 30, keepAlive: 5s, queue: {type: array, capacity: 20}}
workload:
  phases:
    - duration: 20s
      arrivals: {process: poisson, rate: 150}
      service: {dist: exponential, mean: 150ms}
    - arrivals: {process: constant, rate: 3/s}
      service: {dist: constant, value: 10ms}
`

func newServer(t *testing.T, text string, opt serve.Options) *httptest.Server {
	t.Helper()
	sc, err := scenarios.Parse([]byte(text), filepath.Join(t.TempDir(), "s.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

func runURL(ts *httptest.Server, sets ...string) string {
	q := url.Values{"set": sets}
	return ts.URL + "/api/run?" + q.Encode()
}

// messages reads a run's stream of JSON lines.
func messages(t *testing.T, body io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestRunStream: a change streams its result (the figures the library's
// run gives for the same overrides); its explanation streams the findings,
// then the what-ifs.
func TestRunStream(t *testing.T) {
	ts := newServer(t, small, serve.Options{Command: []string{"poolsim", "run", "s.yaml"}})
	resp, err := http.Get(runURL(ts, "pool.keepAlive=4s"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	msgs := messages(t, resp.Body)
	var types []string
	for _, m := range msgs {
		types = append(types, m["type"].(string))
	}
	resp2, err := http.Get(strings.Replace(runURL(ts, "pool.keepAlive=4s"), "/api/run?", "/api/explain?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	msgs = append(msgs, messages(t, resp2.Body)...)
	for _, m := range msgs[len(types):] {
		types = append(types, m["type"].(string))
	}
	if got := strings.Join(types, " "); got != "result explain whatifs" {
		t.Fatalf("messages %q, want result, then explain whatifs", got)
	}
	res := msgs[0]
	if res["simulations"] != 1.0 || msgs[1]["simulations"] != 1.0 {
		t.Errorf("simulations: result %v, findings %v; want 1 each", res["simulations"], msgs[1]["simulations"])
	}
	if res["command"] != "poolsim run s.yaml --set pool.keepAlive=4s" {
		t.Errorf("command %q", res["command"])
	}
	sc, err := scenarios.Parse([]byte(small), "s.yaml", []string{"pool.keepAlive=4s"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRaw, _ := want.Summary.PoolSizeMean.MarshalJSON()
	// The what-ifs message counts the run and one per what-if, as the
	// library's Explain does on the same scenario.
	e, err := explain.Explain(context.Background(), sc, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := msgs[2]["simulations"]; got != float64(e.Simulations) || e.Simulations != 1+len(e.WhatIfs) {
		t.Errorf("what-ifs message: %v simulations; explain ran %d (%d what-ifs)", got, e.Simulations, len(e.WhatIfs))
	}
	found := false
	for _, f := range res["figures"].([]any) {
		f := f.(map[string]any)
		if f["key"] == "pool_size_mean" {
			found = true
			if f["raw"] != string(wantRaw) {
				t.Errorf("pool_size_mean %v, the library's run gives %s", f["raw"], wantRaw)
			}
		}
	}
	if !found {
		t.Errorf("no pool_size_mean figure in %v", res["figures"])
	}
	if !strings.Contains(res["answer"].(string), `class="verdict`) || !strings.Contains(msgs[2]["html"].(string), "What would change it") {
		t.Errorf("the answer or the what-ifs are missing")
	}
	tl := res["timeline"].(map[string]any)
	if n := len(tl["t_s"].([]any)); n != 121 {
		t.Errorf("%d samples, want 121 (t = 0 to 120 s)", n)
	}
}

// TestRunRefusesBadInput: a bad override is refused before anything runs,
// with the command line's message and the key at fault, as the stream's
// only message.
func TestRunRefusesBadInput(t *testing.T) {
	ts := newServer(t, small, serve.Options{})
	tests := []struct{ set, msg, key string }{
		// Not a duration.
		{"pool.keepAlive=abc", `poolsim: --set pool.keepAlive=abc: pool.keepAlive: not a duration: "abc"`, "pool.keepAlive"},
		// A typo in a key.
		{"pool.kepAlive=1s", `poolsim: --set pool.kepAlive=1s: pool.kepAlive: unknown key "kepAlive"; did you mean "keepAlive"?`, "pool.kepAlive"},
		// No value at all.
		{"pool.core", "poolsim: --set pool.core:", ""},
		// The constructor's own check (R2).
		{"pool.core=-1", "poolsim: --set pool.core=-1: pool.core:", "pool.core"},
		// A timeline too long to hold and draw.
		{"sample=1ns", "poolsim: sample: 1ns over a duration of 2m0s makes 120000000000 timeline samples, more than the 100000 poolsim serve draws (a sample of at least 1.2ms)", "sample"},
		// A SynchronousQueue holds nothing (R49).
		{"pool.queue={type: synchronous, capacity: 5}", "pool.queue.capacity: does not apply to a SynchronousQueue", "pool.queue.capacity"},
	}
	for _, tc := range tests {
		resp, err := http.Get(runURL(ts, tc.set))
		if err != nil {
			t.Fatal(err)
		}
		msgs := messages(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(msgs) != 1 || msgs[0]["type"] != "error" {
			t.Errorf("%s: status %d, %v", tc.set, resp.StatusCode, msgs)
			continue
		}
		if m := msgs[0]["message"].(string); !strings.HasPrefix(m, tc.msg) && !strings.Contains(m, tc.msg) {
			t.Errorf("%s: message %q, want %q", tc.set, m, tc.msg)
		}
		if tc.key != "" && msgs[0]["key"] != tc.key {
			t.Errorf("%s: key %v, want %s", tc.set, msgs[0]["key"], tc.key)
		}
	}
	// Too many overrides.
	many := make([]string, 65)
	for i := range many {
		many[i] = "pool.core=1"
	}
	if resp, err := http.Get(runURL(ts, many...)); err != nil || resp.StatusCode != 400 {
		t.Errorf("65 overrides: %v %v", resp.Status, err)
	}
}

// TestRunCancelled: a long run reports its progress, and a request the
// page aborts stops its simulation: the next one gets the only slot at
// once.
func TestRunCancelled(t *testing.T) {
	long := strings.NewReplacer("duration: 2m", "duration: 20h", "rate: 3/s", "rate: 300/s").Replace(small) // about 20 million tasks
	ts := newServer(t, long, serve.Options{Parallel: 1})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", runURL(ts), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"type":"progress","done":`) {
		t.Errorf("a long run's first message %q (%v), want its progress", line, err)
	}
	cancel()
	resp.Body.Close()
	start := time.Now()
	resp, err = http.Get(ts.URL + "/api/scenario.yaml") // no slot needed
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("download: %v %v", resp, err)
	}
	resp.Body.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	req2, _ := http.NewRequestWithContext(ctx2, "GET", runURL(ts, "duration=1m"), nil)
	resp, err = http.DefaultClient.Do(req2)
	if err != nil {
		t.Fatalf("the run after a cancelled one did not get the slot: %v", err)
	}
	msgs := messages(t, resp.Body)
	resp.Body.Close()
	if len(msgs) == 0 || msgs[0]["type"] != "result" {
		t.Fatalf("after a cancelled run: %v", msgs)
	}
	t.Logf("the next run answered %v after the cancel", time.Since(start))
}

// TestYAMLDownload: the scenario with the overrides applied, as a file,
// headed by the command that reproduces it; it loads to the same scenario.
func TestYAMLDownload(t *testing.T) {
	ts := newServer(t, small, serve.Options{Command: []string{"poolsim", "run", "s.yaml"}})
	resp, err := http.Get(ts.URL + "/api/scenario.yaml?" + url.Values{"set": {"pool.queue={type: linked, capacity: 5}"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="small-whatif.yaml"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if !strings.Contains(string(body), "#   poolsim run s.yaml --set 'pool.queue={type: linked, capacity: 5}'") {
		t.Errorf("no command in\n%s", body)
	}
	sc, err := scenarios.Parse(body, "d.yaml", nil)
	if err != nil {
		t.Fatalf("the download does not load: %v\n%s", err, body)
	}
	if sc.Pool.QueueCapacity != 5 || sc.Pool.Queue.String() != "linked" {
		t.Errorf("queue %v capacity %d", sc.Pool.Queue, sc.Pool.QueueCapacity)
	}
}

// TestPageHeaders: the page and its files come with a policy that forbids
// loading anything from elsewhere.
func TestPageHeaders(t *testing.T) {
	ts := newServer(t, small, serve.Options{})
	for _, p := range []string{"/", "/app.js", "/app.css", "/vendor/uPlot.iife.min.js", "/report.css", "/api/base"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("%s: %d, %d bytes", p, resp.StatusCode, len(body))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", p, csp)
		}
	}
	if resp, _ := http.Get(ts.URL + "/nothing"); resp.StatusCode != 404 {
		t.Errorf("/nothing: %d", resp.StatusCode)
	}
}

// TestHostCheck: listening on 127.0.0.1, the server answers only requests
// addressed to it, not to a name a rebinding page resolves to it.
func TestHostCheck(t *testing.T) {
	sc, err := scenarios.Parse([]byte(small), "s.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(sc, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, u, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	if !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Errorf("URL %q", u)
	}
	_, port, _ := strings.Cut(strings.TrimSuffix(u, "/"), "127.0.0.1:")
	for host, want := range map[string]int{"127.0.0.1:" + port: 200, "localhost:" + port: 200, "evil.example:" + port: 421, "127.0.0.1:1": 421} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestRunNeverCrashes: whatever the overrides, the server answers with a
// result or a refusal, never a 500 or a dropped connection.
func TestRunNeverCrashes(t *testing.T) {
	ts := newServer(t, small, serve.Options{})
	inputs := [][]string{
		{"="}, {"=1"}, {"a=b=c"}, {"pool"}, {"pool="}, {"pool=null"}, {"pool={}"}, {"workload=null"},
		{"pool.queue={type: ["}, {"pool.core=99999999999999999999"}, {"pool.core=1e9"}, {"pool.max=-1"},
		{"pool.keepAlive=-5s"}, {"pool.keepAlive=9223372036854775807"}, {"duration=0"}, {"duration=-1s"},
		{"sample=1ns"}, {"duration=100000h"}, {"warmup=3h"}, {"workload.phases.7.arrivals.rate=1"}, {"workload.phases.0.service={dist: pareto, mean: 1s, alpha: 0.5}"},
		{"pool.preset=scheduled"}, {"pool.preset=jetty"}, {"pool.preset=thread-per-task"}, {"pool.preset=single"},
		{"events=[{at: 1s, shutdown: now}]"}, {"events=[{at: 1s, set: {core: 100}}]"}, {"snapshots=[1s, 1s]"},
		{"pool.threadNamePrefix=<script>alert(1)</script>"}, {"name=<b>x</b>"}, {"\x00=\xff"}, {"pool.core=\u202e1"},
		{"workload={trace: /etc/passwd}"}, {"workload={trace: /nonexistent.csv}"}, {"host.cpus=100000"},
	}
	for _, sets := range inputs {
		resp, err := http.Get(runURL(ts, sets...))
		if err != nil {
			t.Fatalf("%q: %v", sets, err)
		}
		msgs := messages(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(msgs) == 0 {
			t.Errorf("%q: status %d, %d messages", sets, resp.StatusCode, len(msgs))
			continue
		}
		last := msgs[len(msgs)-1]
		switch last["type"] {
		case "result":
		case "error":
			if m, _ := last["message"].(string); !strings.HasPrefix(m, "poolsim: ") || strings.Contains(m, "internal error") {
				t.Errorf("%q: refused with %q", sets, m)
			}
		default:
			t.Errorf("%q: ends with %v", sets, last)
		}
	}
}
