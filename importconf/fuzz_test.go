package importconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
