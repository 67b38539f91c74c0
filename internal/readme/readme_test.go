package readme

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// heading is the README section whose first ```go block is checked.
const heading = "## Use poolsim as a Go library"

// TestLibraryExample builds the README's library example as its own
// module, as a user would (import paths github.com/poolsim/poolsim/...),
// with a replace directive pointing at this checkout, then runs it from the
// repository root so that its relative scenario path resolves. It fails if
// the section or its program is missing, if the program does not build, or
// if it exits with a non-zero status.
//
// The example's module is resolved and built offline (GOPROXY=off): what it
// imports is in the module cache once the checkout's packages build, which
// go test ./... has done before any test runs, and which the first step
// ensures when this package is tested alone.
func TestLibraryExample(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goLine, err := goDirective(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := firstGoBlock(readme, heading)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if formatted, err := format.Source([]byte(src)); err == nil && string(formatted) != src {
		t.Errorf("README.md: the program under %q is not gofmt'd; gofmt gives\n%s", heading, formatted)
	}
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first on PATH
	if err != nil {
		t.Fatalf("no go tool: %v", err)
	}

	dir := t.TempDir()
	// The go directive is poolsim's: without one the example would be a go
	// 1.16 module, whose unpruned module graph needs go.mod files of
	// versions that no build of poolsim downloads.
	gomod := fmt.Sprintf("module example.com/readmecheck\n\n%s\n\nrequire github.com/poolsim/poolsim v0.0.0\n\nreplace github.com/poolsim/poolsim => %s\n", goLine, root)
	for name, text := range map[string]string{"go.mod": gomod, "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "readmecheck")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// GOPROXY=off fails any download instead of making it; without a sum
	// database to ask, go.sum is written from the hashes the module cache
	// recorded when the checkout's build downloaded the modules.
	// GOTOOLCHAIN=local never fetches another toolchain; GOWORK=off keeps
	// a go.work above the temporary directory out.
	offline := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off")

	// The packages the example imports, with the user's settings (and
	// network, if the module cache lacks them): the go tool downloads what
	// a build of them needs, as go test ./... would have.
	run(t, root, nil, 5*time.Minute, goTool, "list", "-deps", "./scenarios", "./sim")
	// go mod tidy also looks for the packages that the tests of the
	// example's dependencies import (hdrhistogram-go's testify, go-cmp),
	// which no build downloads: -e lets it write go.mod and go.sum without
	// them. The build fails on anything the program itself lacks.
	run(t, dir, offline, 2*time.Minute, goTool, "mod", "tidy", "-e")
	run(t, dir, offline, 5*time.Minute, goTool, "build", "-o", bin, ".")
	out := run(t, root, nil, time.Minute, bin)
	t.Logf("the README's program, run from %s:\n%s", root, out)
}

// run runs name with args in dir (env nil: this process's environment)
// and returns its combined output; it fails the test if the command fails
// or exits with a non-zero status.
func run(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// goDirective returns the go line of the go.mod at path, which must be
// poolsim's.
func goDirective(path string) (string, error) {
	mod, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(mod, []byte("module github.com/poolsim/poolsim\n")) {
		return "", fmt.Errorf("%s: not poolsim's go.mod", path)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(line, "go ") {
			return line, nil
		}
	}
	return "", fmt.Errorf("%s: no go directive", path)
}

// firstGoBlock returns the body of the first ```go block in the section
// that the heading line opens, which ends at the next heading of the same
// or a higher level.
func firstGoBlock(markdown []byte, heading string) (string, error) {
	level := headingLevel(heading)
	sc := bufio.NewScanner(bytes.NewReader(markdown))
	in, code := false, false
	var b strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case code && isClosingFence(line):
			return b.String(), nil
		case code:
			b.WriteString(line)
			b.WriteString("\n")
		case !in:
			in = strings.TrimSpace(line) == heading
		case strings.HasPrefix(line, "```") && strings.TrimSpace(strings.TrimPrefix(line, "```")) == "go":
			code = true
		case strings.HasPrefix(line, "```"):
			// Another language's block: skip it whole, so that a heading
			// or a ```go line quoted inside it does not count.
			for sc.Scan() && !isClosingFence(sc.Text()) {
			}
		case headingLevel(line) > 0 && headingLevel(line) <= level:
			return "", fmt.Errorf("section %q has no ```go block", heading)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	switch {
	case code:
		return "", fmt.Errorf("section %q: its ```go block is not closed", heading)
	case !in:
		return "", fmt.Errorf("no heading %q", heading)
	}
	return "", fmt.Errorf("section %q has no ```go block", heading)
}

// headingLevel is the number of #s opening an ATX heading line, 0 if the
// line is not a heading.
func headingLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || n > 6 || (n < len(line) && line[n] != ' ') {
		return 0
	}
	return n
}

// isClosingFence reports whether line closes a ``` code block: a closing
// fence has no info string, so a line such as ```go inside a block does
// not close it.
func isClosingFence(line string) bool { return strings.TrimSpace(line) == "```" }
