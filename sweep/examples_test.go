package sweep

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var (
	paramFlagRE  = regexp.MustCompile(`--param\s+(\S+)`)
	assertFlagRE = regexp.MustCompile(`--assert\s+'([^']*)'`)
	shardFlagRE  = regexp.MustCompile(`--shard\s+"?([^"\s]+)"?`)
	plotFlagRE   = regexp.MustCompile(`--plot-metric\s+(\S+)`)
)

// checkCommands checks the poolsim sweep and merge commands in a
// document: each --param parses, each --assert compiles against the grid
// the --params make, each --shard (with the CI's index filled in) is a
// shard, each --plot-metric is a metric. It returns how many flags it
// checked.
func checkCommands(t *testing.T, name, text string) int {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") { // comments are prose
			lines = append(lines, l)
		}
	}
	text = strings.Join(lines, "\n")
	text = strings.NewReplacer("${{ matrix.shard }}", "1", "$((JOB_COMPLETION_INDEX + 1))", "1", "\\\n", " ").Replace(text)
	n := 0
	var ps []Param
	for _, m := range paramFlagRE.FindAllStringSubmatch(text, -1) {
		p, err := ParseParam(m[1])
		if err != nil {
			t.Errorf("%s: --param %s: %v", name, m[1], err)
			continue
		}
		// The same parameters appear in several commands; keep one of each.
		dup := false
		for _, q := range ps {
			dup = dup || q.Key == p.Key
		}
		if !dup {
			ps = append(ps, p)
		}
		n++
	}
	d := Definition{Metrics: Metrics()}
	for _, p := range ps {
		d.Params = append(d.Params, ParamDef{Key: p.Key, Spec: p.Spec, Kind: p.Kind.String(), Values: p.Values})
	}
	for _, m := range assertFlagRE.FindAllStringSubmatch(text, -1) {
		if _, err := CompileGate(m[1], &d); err != nil {
			t.Errorf("%s: --assert '%s': %v", name, m[1], err)
		}
		n++
	}
	for _, m := range shardFlagRE.FindAllStringSubmatch(text, -1) {
		if s, err := ParseShard(m[1]); err != nil || s.Whole() {
			t.Errorf("%s: --shard %s: %v", name, m[1], err)
		}
		n++
	}
	for _, m := range plotFlagRE.FindAllStringSubmatch(text, -1) {
		if indexOf(d.Metrics, m[1]) < 0 {
			t.Errorf("%s: --plot-metric %s: not a metric", name, m[1])
		}
		n++
	}
	return n
}

// The CI examples are valid YAML and their poolsim commands are valid.
func TestCIExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/ci/*.y*ml")
	if len(files) < 3 {
		t.Fatalf("CI examples: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		docs := 0
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: not YAML: %v", f, err)
			}
			docs++
		}
		if n := checkCommands(t, f, string(data)); n < 1 || !strings.Contains(string(data), "poolsim ") {
			t.Errorf("%s: %d flags checked in %d documents", f, n, docs)
		}
	}
}

// The README's "Sweeps in CI" section shows valid commands.
func TestReadmeSweepSection(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "## Sweeps in CI")
	if i < 0 {
		t.Fatal(`README.md has no "Sweeps in CI" section`)
	}
	sec := s[i:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	// The commands are in code blocks; the usage block's placeholders
	// (KEY=VALUES, I/N) are not commands.
	var code []string
	for k, part := range strings.Split(sec, "```") {
		if k%2 == 1 && !strings.Contains(part, "KEY=VALUES") {
			code = append(code, part)
		}
	}
	if n := checkCommands(t, "README.md", strings.Join(code, "\n")); n < 8 {
		t.Errorf("README.md: only %d flags checked", n)
	}
}
