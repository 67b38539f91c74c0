package threaddump

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// FuzzParse: no input makes Parse, Summarise or Format panic; a failure is
// always an *inputerr.Error; a success always has threads, and its summary
// keeps its invariants. Seeded with every committed dump and some shapes.
// Run: go test ./threaddump -run '^$' -fuzz FuzzParse -fuzztime 3m
// (crashers land in testdata/fuzz/FuzzParse and rerun as regression tests).
func FuzzParse(f *testing.F) {
	for _, file := range fixtureNames(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	for _, s := range []string{
		"",
		"\x00",
		"{",
		`{"threadDump":{"threadContainers":[{"threads":[{"tid":"1","name":"a","stack":["x.y(Z.java:1)"]}]}]}}`,
		"\"a\" #1 prio=5 tid=0x1 nid=0x1 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat a.b(C.java:1)\n",
		"#1 \"a\"\n      a.b(C.java:1)\n\n",
		"Found one Java-level deadlock:\n\"a\":\nFound 1 deadlock.\n",
		"\"\" #99999999999999999999 prio=99999999999999999999 tid= nid=0xZZ [\n\t- <\n\tat (\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dumps, err := ParseAll(bytes.NewReader(data), "fuzz")
		if err != nil {
			if !inputerr.Is(err) {
				t.Fatalf("error %v is not an input error", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, d := range dumps {
			if len(d.Threads) == 0 {
				t.Fatal("a dump without threads")
			}
			checkPoolInvariants(t, Summarise(d))
			var b strings.Builder
			if err := Format(&b, d); err != nil {
				t.Fatal(err)
			}
		}
	})
}
