package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/poolsim/poolsim/internal/atomicfile"
)

// Write streams a file into a temporary file beside its target and renames
// it into place only when fn succeeds: a failed or killed write leaves the
// old file whole.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "summary.json")
	_ = atomicfile.WriteBytes(path, []byte("old\n"))
	err := atomicfile.Write(path, func(w io.Writer) error {
		io.WriteString(w, "half a new file")
		return fmt.Errorf("the run failed")
	})
	b, _ := os.ReadFile(path)
	fmt.Printf("%v; the file still reads %q\n", err, b)
	// Output:
	// the run failed; the file still reads "old\n"
}
