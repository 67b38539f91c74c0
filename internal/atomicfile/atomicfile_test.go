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

func TestBatchCommitsEveryFileOrNone(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.json")
	if err := WriteBytes(a, []byte("old a\n")); err != nil {
		t.Fatal(err)
	}
	// Aborted after both were written: neither target changes, no
	// temporary file stays.
	var aborted Batch
	for _, p := range []string{a, b} {
		w, err := aborted.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "new\n")
	}
	aborted.Abort()
	if got, _ := os.ReadFile(a); string(got) != "old a\n" {
		t.Errorf("a is %q after Abort, want the old content", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b exists after Abort (%v), want it never created", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after Abort, want only a", len(entries))
	}
	// Committed: both targets hold the new bytes, with the mode Write gives.
	var batch Batch
	defer batch.Abort()
	for _, p := range []string{a, b} {
		w, err := batch.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, filepath.Base(p)+"\n")
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		got, _ := os.ReadFile(p)
		if want := filepath.Base(p) + "\n"; string(got) != want {
			t.Errorf("%s is %q, want %q", filepath.Base(p), got, want)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want 0644", filepath.Base(p), st.Mode().Perm(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("directory holds %d entries after Commit, want the two targets", len(entries))
	}
}
