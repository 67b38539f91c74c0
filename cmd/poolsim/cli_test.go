package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run calls the CLI in-process and returns its exit code and outputs.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), append([]string{"poolsim"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

const small = `name: small
duration: 2m
warmup: 30s
sample: 1s
pool: {preset: tomcat, core: 2, max: 40, keepAlive: 5s}
workload:
  phases:
    - {duration: 20s, arrivals: {process: poisson, rate: 200}, service: {dist: constant, value: 100ms}}
    - {arrivals: {process: constant, rate: 2}, service: {dist: constant, value: 5ms}}
snapshots: [1m]
`

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunWritesTheContract: run writes the four files of CONTRACT.md §2,
// with the fixed timeline header and the summary fields, and --json prints
// the same summary.
func TestRunWritesTheContract(t *testing.T) {
	sc := writeScenario(t, small)
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", sc, "--out", out, "--plots")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"timeline.csv", "summary.json", "snapshots.txt", "perf.json", "threads.png", "queue.png", "wait.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	tl, _ := os.ReadFile(filepath.Join(out, "timeline.csv"))
	if !strings.HasPrefix(string(tl), "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected") {
		t.Errorf("timeline header: %q", strings.SplitN(string(tl), "\n", 2)[0])
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	var m map[string]any
	if err := json.Unmarshal(sum, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split("submitted completed rejected discarded caller_ran queued_end running_end largest_pool_size final_pool_size pool_size_mean pool_size_max busy_mean queue_len_mean queue_len_max wait_mean_s wait_p50_s wait_p90_s wait_p99_s wait_max_s response_mean_s response_p99_s threads_created threads_exited events sim_time_s seed", " ") {
		if _, ok := m[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	if !strings.Contains(stdout, "small: 2m0s simulated") {
		t.Errorf("human summary: %s", stdout)
	}
	code, js, _ := run(t, "run", sc, "--out", t.TempDir(), "--json")
	if code != 0 || strings.TrimSpace(js) != strings.TrimSpace(string(sum)) {
		t.Errorf("--json printed something else than summary.json (exit %d)", code)
	}
}

func TestPresetsListsAll(t *testing.T) {
	code, out, _ := run(t, "presets")
	if code != 0 {
		t.Fatal(code)
	}
	for _, p := range []string{"jdk", "fixed", "cached", "single", "tomcat", "tomcat-executor", "spring-boot", "spring"} {
		if !strings.Contains(out, "\n"+p+" — ") && !strings.HasPrefix(out, p+" — ") {
			t.Errorf("preset %q not listed", p)
		}
	}
	if !strings.Contains(out, "new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60L, SECONDS, new SynchronousQueue<Runnable>())") {
		t.Error("the cached preset's Java construction is not shown")
	}
}

func TestExplainAndDiagnose(t *testing.T) {
	sc := writeScenario(t, small)
	code, out, stderr := run(t, "explain", sc)
	if code != 0 {
		t.Fatalf("explain exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Why TIMED_WAITING", "Mechanism: FIFO hand-off", "What would change it"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q", want)
		}
	}
	code, out, stderr = run(t, "diagnose", sc, "--workers", "10", "--timed", "10", "--since", "90s", "--replications", "3")
	if code != 0 {
		t.Fatalf("diagnose exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "periodic traffic") || !strings.Contains(out, "Verdict") {
		t.Errorf("diagnose output:\n%s", out)
	}
	code, _, stderr = run(t, "diagnose", sc)
	if code != 2 || !strings.Contains(stderr, "needs an observation") {
		t.Errorf("diagnose without an observation: exit %d %s", code, stderr)
	}
}

func TestJstackCommand(t *testing.T) {
	code, out, stderr := run(t, "jstack", "../../threaddump/testdata/jdk17-jstack-l.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "http-nio-8080-exec-") || !strings.Contains(out, "TaskQueue.poll") {
		t.Errorf("jstack output:\n%s", out)
	}
	if code, _, _ := run(t, "jstack", "no-such-dump.txt"); code != 2 {
		t.Errorf("a missing dump: exit %d, want 2", code)
	}
}

func TestReportCommand(t *testing.T) {
	fifo := writeScenario(t, small)
	lifo := writeScenario(t, strings.Replace(small, "keepAlive: 5s}", "keepAlive: 5s, queue: {handOff: lifo}}", 1))
	out := t.TempDir()
	code, _, stderr := run(t, "report", fifo, lifo, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("data:image/png;base64,")) || bytes.Contains(page, []byte("http://")) || bytes.Contains(page, []byte("https://")) {
		t.Error("report.html must embed its images and reference nothing outside")
	}
	if !bytes.Contains(page, []byte("Why TIMED_WAITING")) {
		t.Error("report.html lacks the explanation")
	}
}

// TestFlagsAfterScenario: the contract writes flags after the scenario.
func TestFlagsAfterScenario(t *testing.T) {
	sc := writeScenario(t, small)
	dir := t.TempDir()
	if code, _, stderr := run(t, "run", sc, "--seed", "7", "--out", dir, "--set", "pool.max=30"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !bytes.Contains(sum, []byte(`"seed": 7`)) {
		t.Error("--seed after the scenario was ignored")
	}
}

// TestSetValueWithCommas: --set values are YAML; a flow mapping holds
// commas, which must not split the flag (README's own example).
func TestSetValueWithCommas(t *testing.T) {
	sc := writeScenario(t, small)
	code, out, stderr := run(t, "run", sc, "--out", t.TempDir(), "--set", "pool={preset: jdk, core: 2, max: 4, queue: {type: array, capacity: 50}}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "queue array (capacity 50)") {
		t.Errorf("the override did not apply:\n%s", out)
	}
}

// TestFromDataSource: --from reads spring.datasource.hikari.* onto the
// scenario's hikari resource (--set still wins), says so in its
// description, and notes a DataSource that the scenario's tasks never use.
// TestFromPrintsReadingNotes: what reading --from noted itself — the
// Spring Boot version taken from the project's pom.xml, or why a version
// there was left out — is printed with the keys found, so that the user
// sees which version's defaults the answer rests on.
func TestFromPrintsReadingNotes(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"2.7.18", "  note     Spring Boot 2.7.18, from "},
		{"2.7&quot;18", `names Spring Boot version "2.7\"18", which is not a version`},
	} {
		dir := t.TempDir()
		res := filepath.Join(dir, "src", "main", "resources")
		if err := os.MkdirAll(res, 0o755); err != nil {
			t.Fatal(err)
		}
		pom := "<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>" + tc.version + "</version></parent></project>"
		props := filepath.Join(res, "application.properties")
		if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(props, []byte("server.tomcat.threads.max=50\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, "run", writeScenario(t, small), "--from", props, "--out", filepath.Join(dir, "out"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.version, code, stderr)
		}
		if !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: the description lacks %q:\n%s", tc.version, tc.want, stdout)
		}
	}
}

func TestFromDataSource(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "application.properties")
	if err := os.WriteFile(props, []byte("server.tomcat.threads.max=50\nspring.datasource.url=jdbc:h2:mem:x\nspring.datasource.hikari.maximum-pool-size=6\nspring.datasource.hikari.connection-timeout=1500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	example := "../../scenarios/examples/tomcat-hikari.yaml"
	summary := func(out string) (res struct {
		Resources []struct {
			Name string `json:"name"`
			Size int    `json:"size"`
		} `json:"resources"`
	}) {
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		return
	}
	out := filepath.Join(dir, "a")
	code, stdout, stderr := run(t, "run", example, "--from", props, "--set", "duration=1m", "--set", "warmup=10s", "--set", "snapshots=[]", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := summary(out).Resources; len(r) != 1 || r[0].Size != 6 {
		t.Errorf("resources %+v, want db with 6 connections", r)
	}
	if !strings.Contains(stdout, "found    spring.datasource.hikari.maximum-pool-size = 6") {
		t.Errorf("the description does not show the key read:\n%s", stdout)
	}
	out = filepath.Join(dir, "b")
	if code, _, stderr := run(t, "run", example, "--from", props, "--set", "duration=1m", "--set", "warmup=10s", "--set", "snapshots=[]", "--set", "resources.db.maximumPoolSize=12", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := summary(out).Resources; r[0].Size != 12 {
		t.Errorf("--set after --from: size %d, want 12", r[0].Size)
	}
	code, _, stderr = run(t, "run", writeScenario(t, small), "--from", props, "--out", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stderr, "hold no connection, so it is not simulated") {
		t.Errorf("a scenario without a hikari resource: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, "run", example, "--from", props, "--datasource", "orders", "--out", filepath.Join(dir, "d"))
	if code != 2 || !strings.Contains(stderr, `no hikari resource "orders"`) {
		t.Errorf("--datasource naming nothing: exit %d, stderr %q", code, stderr)
	}
}

// TestCompareCommand: poolsim compare with two files and with one and
// --vs; wrong argument counts and bad keys are usage errors (exit 2).
func TestCompareCommand(t *testing.T) {
	p := writeScenario(t, small)
	q := writeScenario(t, strings.Replace(small, "max: 40", "max: 10", 1))
	code, out, errs := run(t, "compare", p, q)
	if code != 0 || !strings.Contains(out, "Same traffic") || !strings.Contains(out, "tomcat, max 40") || !strings.Contains(out, "tomcat, max 10") {
		t.Fatalf("compare A B: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "compare", p, "--vs", "pool.max=10")
	if code != 0 || !strings.Contains(out, "with pool.max=10") || !strings.Contains(out, "tomcat, max 10") {
		t.Fatalf("compare A --vs: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"compare", p},                           // B missing
		{"compare", p, q, "--vs", "pool.max=10"}, // both
		{"compare", p, q, p},                     // three
		{"compare", p, "--vs", "pool.maxx=10"},   // unknown key
		{"compare", p, "--vs", "pool.max=lots"},  // bad value
	} {
		if code, _, errs := run(t, args...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
	}
}

// TestCompareHelpExampleRuns: the --vs example compare's help gives for
// virtual threads runs on a platform scenario. The former example,
// --vs pool.preset=spring-boot-virtual, kept the platform pool's max and
// failed ("pool.max: the spring-boot-virtual preset starts a virtual
// thread per task", R130); the pool row of a virtual side names its
// carriers, not "max unbounded".
func TestCompareHelpExampleRuns(t *testing.T) {
	_, help, _ := run(t, "compare", "--help")
	const example = "--vs 'pool={preset: spring-boot-virtual}' --vs jvm.parallelism=2"
	if !strings.Contains(strings.Join(strings.Fields(help), " "), example) {
		t.Fatalf("compare --help no longer gives the example %s:\n%s", example, help)
	}
	code, out, errs := run(t, "compare", "../../scenarios/examples/tomcat-hikari.yaml",
		"--vs", "pool={preset: spring-boot-virtual}", "--vs", "jvm.parallelism=2", "--set", "duration=1m", "--set", "warmup=20s", "--set", "snapshots=[30s]")
	if code != 0 {
		t.Fatalf("the help's example: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "spring-boot-virtual, JDK 25, 2 carriers") || strings.Contains(out, "max unbounded") {
		t.Errorf("pool row of the virtual side:\n%s", out)
	}
}

// TestFromVirtualThreads: --from a configuration that turns on virtual
// threads simulates them (R141, R142) instead of the pool it replaces:
// Spring Boot's spring.threads.virtual.enabled, Tomcat's useVirtualThreads.
func TestFromVirtualThreads(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "application.properties")
	if err := os.WriteFile(props, []byte("spring.threads.virtual.enabled=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := filepath.Join(dir, "server.xml")
	if err := os.WriteFile(xml, []byte(`<Server port="-1"><Service name="Catalina"><Connector port="8080" protocol="HTTP/1.1" useVirtualThreads="true"/><Engine name="Catalina" defaultHost="localhost"/></Service></Server>`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := writeScenario(t, small)
	for _, tc := range []struct{ from, preset string }{{props, "spring-boot-virtual"}, {xml, "tomcat-virtual"}} {
		code, out, errs := run(t, "run", p, "--from", tc.from, "--set", "jvm.parallelism=2", "--out", filepath.Join(dir, tc.preset))
		if code != 0 {
			t.Fatalf("--from %s: exit %d\n%s", tc.from, code, errs)
		}
		if !strings.Contains(errs+out, "simulated as preset: "+tc.preset) {
			t.Errorf("--from %s: the description does not name preset %s:\n%s%s", tc.from, tc.preset, out, errs)
		}
		b, err := os.ReadFile(filepath.Join(dir, tc.preset, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		out = string(b)
		var s struct {
			Virtual *struct {
				Parallelism int `json:"parallelism"`
			} `json:"virtual"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Virtual == nil || s.Virtual.Parallelism != 2 {
			t.Errorf("--from %s: no virtual-thread summary with parallelism 2 (%v):\n%s", tc.from, err, out)
		}
	}
	// Without carriers the scenario is refused, naming the key.
	if code, _, errs := run(t, "run", p, "--from", props, "--out", filepath.Join(dir, "x")); code != 2 || !strings.Contains(errs, "jvm.parallelism") {
		t.Errorf("no parallelism: exit %d, %q; want 2 naming jvm.parallelism", code, errs)
	}
}

// TestDiagnoseVirtualRefused: diagnose reads a pool's idle and busy
// workers; virtual threads have none (R130), so it refuses and points to
// jstack and explain instead of fitting a pool that does not exist.
func TestDiagnoseVirtualRefused(t *testing.T) {
	code, _, errs := run(t, "diagnose", "../../scenarios/examples/tomcat-virtual-hikari.yaml", "--dump", "../../threaddump/testdata/jdk25-virtual-hikari.json")
	if code != 2 || !strings.Contains(errs, "poolsim jstack") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("exit %d, %q; want 2 and one line pointing to poolsim jstack", code, errs)
	}
}

// TestDiagnoseSkipsVirtualThreadCarriers: a dump of a virtual-thread
// service (Temurin 25, threaddump/testdata/jdk25-virtual-hikari.json)
// diagnosed against a platform pool took the scheduler's carriers
// (ForkJoinPool-1-worker-, R131) as "the pool" and fitted Tomcat's rules
// to them. The carriers are never picked, and asking for them by --prefix
// is refused (exit 2, one line).
func TestDiagnoseSkipsVirtualThreadCarriers(t *testing.T) {
	const dump = "../../threaddump/testdata/jdk25-virtual-hikari.json"
	const sc = "../../scenarios/examples/tomcat-hikari.yaml"
	code, out, errs := run(t, "diagnose", sc, "--dump", dump)
	if code != 0 || strings.Contains(out+errs, "ForkJoinPool-1-worker-") {
		t.Errorf("diagnose took the carriers as the pool: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "diagnose", sc, "--dump", dump, "--prefix", "ForkJoinPool-1-worker-")
	if code != 2 || !strings.Contains(errs, "virtual-thread scheduler's carriers (R131)") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("--prefix of the carriers: exit %d, stderr %q; want 2 and one line naming the carriers", code, errs)
	}
}

// TestFromVirtualTaskExecutorLimit: with spring.threads.virtual.enabled,
// Boot's applicationTaskExecutor is a SimpleAsyncTaskExecutor that takes
// spring.task.execution.simple.concurrency-limit (R142, R143). --from
// dropped it and simulated no limit; it is now the preset's
// concurrencyLimit, and rejectTasksWhenLimitReached follows its key.
func TestFromVirtualTaskExecutorLimit(t *testing.T) {
	dir := t.TempDir()
	p := writeScenario(t, small)
	for _, tc := range []struct{ props, want string }{
		{"spring.task.execution.simple.concurrency-limit=10\n", "at most 10 at once: beyond, the caller of execute waits"},
		{"spring.task.execution.simple.concurrency-limit=3\nspring.task.execution.simple.reject-tasks-when-limit-reached=true\n", "at most 3 at once: beyond, execute is refused"},
		{"", "no queue, no limit, no reuse"},
	} {
		props := filepath.Join(dir, "application.properties")
		if err := os.WriteFile(props, []byte("spring.threads.virtual.enabled=true\n"+tc.props), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, "run", p, "--from", props, "--pool", "applicationTaskExecutor", "--set", "jvm.parallelism=2", "--out", filepath.Join(dir, "out"))
		if code != 0 || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%q: exit %d, want %q in\n%s%s", tc.props, code, tc.want, out, errs)
		}
	}
}
