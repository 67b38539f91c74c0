package accesslog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpus reads the real-world access logs in testdata/corpus (sources
// and licences in testdata/corpus/SOURCES) with the pattern each was
// written with (read from the lines by hand). None of them logs a request
// duration in every line, so none can be replayed: each is refused in one
// line naming the file, and where a line is at fault, the line.
func TestCorpus(t *testing.T) {
	for _, tc := range []struct {
		file, pattern string
		opt           Options
		refusal       string // a substring of the error
	}{
		// Apache httpd's combined format (lnav's test log): no duration.
		{"lnav-logfile_access_log.0", "combined", Options{}, "logs no request duration"},
		{"matomo-common.log", "common", Options{}, "logs no request duration"},
		{"matomo-ncsa_extended.log", "combined", Options{}, "logs no request duration"},
		// Tomcat's default server.xml pattern (%h %l %u %t "%r" %s %b).
		{"elastic-tomcat-test-access-invalid-request-target.log", `%h %l %u %t "%r" %s %b`, Options{}, "logs no request duration"},
		// Elastic's Tomcat test log mixes formats; its line 4 is
		// `... %s %b %D "%{Referer}i" "%{User-Agent}i" X-Forwarded-For="%{X-Forwarded-For}i"`:
		// read with that pattern, line 1 does not match and the file is refused there.
		{"elastic-tomcat-test-access.log", `%h %l %u %t "%r" %s %b %D "%{Referer}i" "%{User-Agent}i" X-Forwarded-For="%{X-Forwarded-For}i"`,
			Options{DurationUnit: DMillis}, "elastic-tomcat-test-access.log:1"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "corpus", tc.file)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tc.opt.Pattern = tc.pattern
			p, err := Parse(f, path, tc.opt)
			if err == nil {
				for {
					if _, ok := p.Next(); !ok {
						break
					}
				}
				err = p.Err()
			}
			if err == nil || !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), tc.file) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want a one-line refusal naming %s and %q", err, tc.file, tc.refusal)
			}
		})
	}
}
