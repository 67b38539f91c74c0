package accesslog

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// regen rewrites the committed sample logs from the real Tomcat valve:
//
//	go test ./workloads/accesslog -run TestSamples -regen
var regen = flag.Bool("regen", false, "rewrite testdata sample logs with Tomcat's AccessLogValve (needs Java and libtomcat10-java)")

// request is one synthetic request: what GenAccessLog is told, and the
// truth a parse is checked against.
type request struct {
	start   int64 // epoch nanoseconds
	elapsed int64 // nanoseconds
	commit  int64 // nanoseconds after start; -1: never committed
	status  int
	bytes   int64
	method  string
	uri     string
	addr    string
	agent   string
}

func (r request) end() int64 { return r.start + r.elapsed }

func (r request) spec() string {
	return fmt.Sprintf("%d %d %d %d %d %s %s %s %s", r.start, r.elapsed, r.commit, r.status, r.bytes, r.method, r.uri, r.addr, r.agent)
}

var agents = []string{
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
	"curl/8.5.0",
	`kube-probe/1.29`,
	`Java-http-client/17.0.9`,
	`odd "quoted" agent \ with backslash`,
}

// genRequests makes n requests arriving as a Poisson process of rate per
// second, with service times mixing short, medium and rare very long
// requests (so that completion order differs from arrival order), returned
// in completion order with up to jitter of write-order noise, as Tomcat's
// log has them. The seed fixes everything.
func genRequests(seed uint64, n int, rate float64, jitter time.Duration) []request {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	t := int64(1700000000)*1e9 + rng.Int64N(1e9)
	reqs := make([]request, n)
	for i := range reqs {
		t += int64(rng.ExpFloat64() / rate * 1e9)
		var e float64
		switch u := rng.Float64(); {
		case u < 0.90:
			e = rng.ExpFloat64() * 0.05
		case u < 0.99:
			e = rng.ExpFloat64() * 0.5
		default:
			e = 5 + 35*rng.Float64()
		}
		r := request{start: t, elapsed: int64(e*1e9) + 1000 + rng.Int64N(1000), status: 200, method: "GET",
			addr: fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), 1+rng.IntN(254)), agent: agents[rng.IntN(len(agents))]}
		r.commit = int64(float64(r.elapsed) * (0.1 + 0.9*rng.Float64()))
		if rng.IntN(50) == 0 {
			r.commit = -1
		}
		switch rng.IntN(20) {
		case 0:
			r.status = 404
		case 1:
			r.status = 500
		case 2:
			r.method = "POST"
		}
		r.bytes = rng.Int64N(20000)
		if rng.IntN(10) == 0 {
			r.bytes = 0
		}
		r.uri = fmt.Sprintf("/api/orders/%d", rng.IntN(100000))
		if rng.IntN(3) == 0 {
			r.uri += fmt.Sprintf("?page=%d&size=20", rng.IntN(9))
		}
		reqs[i] = r
	}
	// Log order: completion time plus write-order noise.
	key := make([]int64, n)
	for i, r := range reqs {
		key[i] = r.end() + rng.Int64N(int64(jitter)+1)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return key[idx[a]] < key[idx[b]] })
	out := make([]request, n)
	for i, j := range idx {
		out[i] = reqs[j]
	}
	return out
}

// tomcatClasspath is where Debian's libtomcat10-java puts the jars the
// generator needs; TOMCAT_CLASSPATH overrides it.
func tomcatClasspath() string {
	if cp := os.Getenv("TOMCAT_CLASSPATH"); cp != "" {
		return cp
	}
	var jars []string
	for _, j := range []string{"catalina", "util", "coyote", "servlet-api", "juli", "api"} {
		jars = append(jars, "/usr/share/java/tomcat10-"+j+".jar")
	}
	return strings.Join(jars, string(os.PathListSeparator))
}

// needTomcat compiles GenAccessLog against the Tomcat jars into a temporary
// directory and returns the class path to run it. Without Java or the jars
// the test is skipped on a developer's machine and fails when CI=true.
func needTomcat(t testing.TB) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s (CI installs default-jdk and libtomcat10-java)", why)
		}
		t.Skipf("skipping: %s (install a JDK and Debian's libtomcat10-java, or set TOMCAT_CLASSPATH)", why)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		missing("no javac on PATH")
	}
	cp := tomcatClasspath()
	for _, j := range filepath.SplitList(cp) {
		if _, err := os.Stat(j); err != nil {
			missing("no " + j)
		}
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/jvm/GenAccessLog.java")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("javac", "-nowarn", "-cp", cp, "-d", dir, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac GenAccessLog: %v\n%s", err, out)
	}
	return cp + string(os.PathListSeparator) + dir
}

// tomcatLog runs Tomcat's AccessLogValve over reqs with pattern, in zone.
func tomcatLog(t testing.TB, cp, pattern, zone string, reqs []request) string {
	t.Helper()
	var in bytes.Buffer
	for _, r := range reqs {
		in.WriteString(r.spec())
		in.WriteByte('\n')
	}
	cmd := exec.Command("java", "-Duser.timezone="+zone, "-Duser.language=en", "-Duser.country=US", "-cp", cp, "GenAccessLog", pattern)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GenAccessLog %q: %v\n%s", pattern, err, stderr.Bytes())
	}
	return string(out)
}

// readRequests reads a truth file written by writeRequests.
func readRequests(t testing.TB, path string) []request {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []request
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 9)
		if len(f) < 8 {
			t.Fatalf("%s: bad truth line %q", path, line)
		}
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return n
		}
		r := request{start: num(f[0]), elapsed: num(f[1]), commit: num(f[2]), status: int(num(f[3])), bytes: num(f[4]), method: f[5], uri: f[6], addr: f[7]}
		if len(f) > 8 {
			r.agent = f[8]
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// checkAgainstTruth parses log and checks every record against the
// request it came from (truth[i] wrote line i+1): the service time within
// the parser's service resolution, the arrival (relative to the first
// line) within the arrival plus service resolutions (the CLF end second is
// truncated, then the truncated duration subtracted).
func checkAgainstTruth(t *testing.T, name, log string, opt Options, truth []request) Stats {
	t.Helper()
	p, err := Parse(strings.NewReader(log), name, opt)
	if err != nil {
		t.Fatal(err)
	}
	res := p.Resolution()
	n := 0
	var origin int64
	for {
		rec, ok := p.Next()
		if !ok {
			break
		}
		tr := truth[rec.Line-1]
		want := time.Duration(tr.elapsed)
		if opt.UseCommitTime {
			want = time.Duration(tr.commit)
		}
		if d := want - rec.Service; d < 0 || d >= res.Service {
			t.Fatalf("%s line %d: service %s, truth %s (resolution %s)", name, rec.Line, rec.Service, want, res.Service)
		}
		if n == 0 {
			origin = tr.start
		}
		wantArr := time.Duration(tr.start - origin)
		if d := rec.Arrival - wantArr; math.Abs(float64(d)) >= float64(res.Arrival+res.Service) {
			t.Fatalf("%s line %d: arrival %s, truth %s (bound %s)", name, rec.Line, rec.Arrival, wantArr, res.Arrival+res.Service)
		}
		n++
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	return p.Stats()
}
