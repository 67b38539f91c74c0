package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesOnlyWhenComplete(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := WriteBytes(p, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	// A writer that fails half-way must leave the old file untouched and
	// no temporary file behind.
	boom := errors.New("interrupted")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "half a new fi")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old\n" {
		t.Errorf("file is %q after a failed write, want the old content", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the target", len(entries))
	}
	if err := WriteBytes(p, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new\n" {
		t.Errorf("got %q, want the new content", got)
	}
}
