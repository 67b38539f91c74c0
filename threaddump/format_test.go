package threaddump

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from the current Format output")

// TestFormatGolden: Format's report of four fixtures, byte for byte (go test
// -run TestFormatGolden -update rewrites them after a deliberate change).
func TestFormatGolden(t *testing.T) {
	for _, file := range []string{"jdk17-jstack-l.txt", "jdk8-tomcat-kill3.log", "jdk21-dump.json", "jdk25-virtual-hikari.json"} {
		d, err := ParseFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		d.Name = file // the report names the file as the caller gave it
		var b strings.Builder
		if err := Format(&b, d); err != nil {
			t.Fatal(err)
		}
		if again := d.String(); again != b.String() {
			t.Errorf("%s: Format is not deterministic", file)
		}
		golden := filepath.Join("testdata", "golden", file+".golden")
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s: report differs from %s:\n%s", file, golden, b.String())
		}
	}
	if err := Format(&strings.Builder{}, nil); err == nil {
		t.Error("Format(nil) gave no error")
	}
}
