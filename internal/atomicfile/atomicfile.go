// Package atomicfile writes files so that a reader never sees a partial
// one: the data goes to a temporary file in the same directory, is synced,
// and is renamed over the target only when complete.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates path with the bytes fn writes. If fn or any step fails,
// path is left as it was and the temporary file is removed.
func Write(path string, fn func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = fn(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
