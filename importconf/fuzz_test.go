package importconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// seed adds every testdata file matching the patterns to the corpus.
func seed(f *testing.F, patterns ...string) {
	for _, pat := range patterns {
		files, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// checkResult holds for any input: bad input is an input error (never a
// panic), a result is deterministic, and every pool is one a real
// ThreadPoolExecutor constructor would accept (R2).
func checkResult(t *testing.T, parse func() (*Settings, error)) {
	s, err := parse()
	if err != nil {
		var ie *inputerr.Error
		if !errors.As(err, &ie) && !strings.HasPrefix(err.Error(), "importconf: ") {
			t.Fatalf("error is neither an input error nor an importconf error: %v", err)
		}
		if ie != nil && ie.File == "" {
			t.Fatalf("input error without a file: %v", err)
		}
		return
	}
	again, err2 := parse()
	if err2 != nil || !reflect.DeepEqual(s, again) {
		t.Fatalf("not deterministic: %v", err2)
	}
	for _, p := range s.Pools {
		if p.VirtualThreads {
			continue
		}
		if p.Core < 0 || p.Max < 1 || p.Core > p.Max || p.KeepAlive < 0 || p.MaxQueueSize < 0 {
			t.Fatalf("pool a ThreadPoolExecutor would refuse: %+v", p)
		}
		if p.Kind != KindSpringTask && p.MaxQueueSize < 1 {
			t.Fatalf("Tomcat pool with queue %d", p.MaxQueueSize)
		}
		for _, o := range p.Found {
			if o.File == "" || o.Line < 1 {
				t.Fatalf("origin without position: %+v", o)
			}
		}
	}
	for _, c := range s.Connectors {
		if c.Pool >= len(s.Pools) {
			t.Fatalf("connector %+v points past %d pools", c, len(s.Pools))
		}
	}
}

func FuzzServerXML(f *testing.F) {
	seed(f, "*.xml")
	f.Add(serverXML("", `<Executor name="e"/><Connector executor="e" port="${p:-1}"/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResult(t, func() (*Settings, error) {
			return ParseServerXML("server.xml", data, Options{Properties: map[string]string{"p": "80"}})
		})
	})
}

func FuzzProperties(f *testing.F) {
	seed(f, "*.properties", "siblings/*.properties")
	f.Add([]byte("a=${b:${c}}\\\n  x\n#---\nspring.config.activate.on-profile=(a|b)&!c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResult(t, func() (*Settings, error) {
			return ParseProperties("application.properties", data, Options{})
		})
	})
}

func FuzzSpringYAML(f *testing.F) {
	seed(f, "*.yml", "siblings/*.yml")
	f.Add([]byte("a: &x {b: 1}\nc:\n  <<: *x\n---\nspring.config.activate.on-profile: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResult(t, func() (*Settings, error) {
			return ParseSpringYAML("application.yml", data, Options{Profiles: []string{"prod"}})
		})
	})
}

// Work must grow linearly with the input: a one-line server.xml with many
// elements once cost O(n²) in column counting (20000 connectors took 7.5 s,
// so 60000 would take about a minute); linear code takes well under a
// second. The bound is generous because the machine is shared.
func TestLargeInputsStayLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs: skipped with -short")
	}
	const bound = 20 * time.Second
	for _, tc := range []struct {
		name  string
		parse func() error
	}{
		{"one-line server.xml, 60000 connectors", func() error {
			_, err := ParseServerXML("s", []byte("<Server><Service>"+strings.Repeat(`<Connector port="1"/>`, 60000)+"</Service></Server>"), Options{})
			return err
		}},
		{"deep nesting", func() error {
			_, err := ParseServerXML("s", []byte("<Server>"+strings.Repeat("<a>", 300000)), Options{})
			if err == nil {
				return errors.New("unclosed elements accepted")
			}
			return nil
		}},
		{"properties with 100000 placeholders", func() error {
			var b strings.Builder
			for i := 0; i < 100000; i++ {
				b.WriteString("k")
				b.WriteString(strconv.Itoa(i))
				b.WriteString("=${k0}\n")
			}
			_, err := ParseProperties("p", []byte(b.String()), Options{})
			return err
		}},
	} {
		start := time.Now()
		if err := tc.parse(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if d := time.Since(start); d > bound {
			t.Errorf("%s took %s (bound %s): super-linear work", tc.name, d, bound)
		}
	}
}
