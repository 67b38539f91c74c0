package readme

import (
	"strings"
	"testing"
)

// TestFirstGoBlock: the extraction finds the program only where the
// README's section puts it, and says what is missing otherwise, so that a
// renamed heading or a removed block fails TestLibraryExample instead of
// checking nothing.
func TestFirstGoBlock(t *testing.T) {
	const h = "## Use poolsim as a Go library"
	for _, c := range []struct {
		name, md string
		want     string // the block's body; "" when an error is expected
		err      string // part of the expected error
	}{
		// The plain case: the first go block under the heading.
		{"found", "# poolsim\n\n" + h + "\n\ntext\n\n```go\npackage main\n```\n\n```go\npackage second\n```\n", "package main\n", ""},
		// A console block before it is skipped, even if it quotes a heading.
		{"after another block", h + "\n```console\n## not a heading\n```go\n```\n```go\npackage main\n```\n", "package main\n", ""},
		// A subsection belongs to the section.
		{"in a subsection", h + "\n### Details\n```go\npackage main\n```\n", "package main\n", ""},
		// No heading (renamed, removed).
		{"no heading", "# poolsim\n## Use poolsim as a library\n```go\npackage main\n```\n", "", "no heading"},
		// A heading without a go block: the next section's block does not count.
		{"no block", h + "\ntext\n## Next\n```go\npackage main\n```\n", "", "has no ```go block"},
		{"no block at the end", h + "\ntext\n", "", "has no ```go block"},
		// An unclosed block is an error, not a truncated program.
		{"unclosed", h + "\n```go\npackage main\n", "", "not closed"},
		// "#hashtag" is not a heading: the section goes on.
		{"not a heading", h + "\n#hashtag\n```go\npackage main\n```\n", "package main\n", ""},
	} {
		got, err := firstGoBlock([]byte(c.md), h)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %q, %v; want an error with %q", c.name, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
