// Package atomicfile writes files so that a reader never sees a partial
// one: the data goes to a temporary file in the same directory, is synced,
// and is renamed over the target only when complete.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Write creates path with the bytes fn writes. If fn or any step fails,
// path is left as it was and the temporary file is removed.
func Write(path string, fn func(w io.Writer) error) (err error) {
	var b Batch
	defer b.Abort()
	w, err := b.Create(path)
	if err != nil {
		return err
	}
	if err = fn(w); err != nil {
		return err
	}
	return b.Commit()
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Batch writes several files, each as Write does, that are synced together
// and then renamed into place one by one in the order they were created.
// Syncing them at once rather than one after the other is the point: on a
// journaling filesystem each fsync waits for a journal commit (and, under
// ext4's ordered mode, for other processes' data in it), and syncs that
// overlap share a commit. poolsim run writes three or four files; synced
// in turn they were a millisecond or more of its wall time on a shared
// machine (issue 19).
//
// Every file is complete and synced before the first rename, so a reader,
// or a crash, finds each target either as it was or whole.
type Batch struct {
	files []*os.File
	paths []string
	done  int // files renamed into place
}

// Create starts the file that will become path and returns its writer,
// valid until Commit or Abort.
func (b *Batch) Create(path string) (io.Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %w", err)
	}
	b.files = append(b.files, f)
	b.paths = append(b.paths, path)
	return f, nil
}

// Commit syncs every file created, all at once, and renames them into
// place in the order they were created. If a step fails, the files not
// yet renamed are removed (Abort) and their targets are left as they were.
func (b *Batch) Commit() (err error) {
	defer func() {
		if err != nil {
			b.Abort()
		}
	}()
	errs := make([]error, len(b.files))
	var wg sync.WaitGroup
	for i := 1; i < len(b.files); i++ {
		wg.Go(func() { errs[i] = b.files[i].Sync() })
	}
	if len(b.files) > 0 {
		errs[0] = b.files[0].Sync()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
	}
	for i := b.done; i < len(b.files); i++ {
		f := b.files[i]
		if err := f.Close(); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
		if err := os.Rename(f.Name(), b.paths[i]); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
		b.done = i + 1
	}
	return nil
}

// Abort removes the temporary files not renamed into place; their targets
// stay as they were. It does nothing after a successful Commit.
func (b *Batch) Abort() {
	for _, f := range b.files[b.done:] {
		f.Close()
		os.Remove(f.Name())
	}
	b.done = len(b.files)
}
