package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// TestVirtualScriptString checks the text VirtualRun reads.
func TestVirtualScriptString(t *testing.T) {
	s := VirtualScript{Parallelism: 2, End: vms(1000), Tasks: []VirtualTask{
		{At: 0, Steps: []VirtualStep{compute(50), block("", 200), block("native", 100)}},
		{At: vms(20), Steps: []VirtualStep{block("clinit", 300)}},
	}}
	want := "virtual endMs=1000\n" +
		"task id=1 atMs=0 steps=compute:50,block:200,block@native:100\n" +
		"task id=2 atMs=20 steps=block@clinit:300\n"
	if got := s.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestVirtualRunRefusesBadScripts checks that VirtualRun answers a bad line with exit status
// 2 and one line naming the line and the key, which RunVirtual returns as *inputerr.Error.
func TestVirtualRunRefusesBadScripts(t *testing.T) {
	r := RequireJDK25(t)
	bad := []struct {
		text      string
		line      int
		key, want string
	}{
		{"virtual endMs=100\ntask id=1 atMs=0 steps=spin:5\n", 2, "steps", "step kind spin"},
		{"virtual endMs=100\ntask id=1 atMs=0 steps=block@jni:5\n", 2, "steps", "where jni"},
		{"virtual endMs=100\ntask id=2 atMs=0 steps=compute:5\n", 2, "id", "want 1"},
		{"virtual endMs=100\ntask id=1 atMs=5 steps=compute:5\ntask id=2 atMs=4 steps=compute:5\n", 3, "atMs", "before the previous"},
		{"virtual endMs=x\n", 1, "endMs", "not an integer"},
		{"virtual endMs=100 p=2\n", 1, "p", "unknown key"},
		{"task id=1 atMs=0 steps=compute:5\n", 1, "task", "before the virtual line"},
	}
	for _, c := range bad {
		_, err := r.runVirtualText(context.Background(), c.text, VirtualScript{Parallelism: 1, End: vms(100)})
		var ie *inputerr.Error
		if !errors.As(err, &ie) {
			t.Errorf("%q: err = %v, want an input error", c.text, err)
			continue
		}
		if ie.Line != c.line || ie.Key != c.key || !strings.Contains(ie.Msg, c.want) {
			t.Errorf("%q: line %d key %q msg %q, want line %d key %q msg with %q", c.text, ie.Line, ie.Key, ie.Msg, c.line, c.key, c.want)
		}
	}
}
