package sim

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestPhaseTableDocumented holds doc.go's numbered list of phases to the
// table that orders simultaneous events (heap.go): same names, same order.
func TestPhaseTableDocumented(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc []string
	for _, m := range regexp.MustCompile(`(?m)^//\s+\d+\. (\w+):`).FindAllStringSubmatch(string(src), -1) {
		doc = append(doc, m[1])
	}
	if !slices.Equal(doc, phaseNames[:]) {
		t.Errorf("doc.go lists the phases %v; heap.go orders them %v", doc, phaseNames)
	}
}
