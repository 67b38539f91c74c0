package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartCPUProfile: POOLSIM_CPUPROFILE writes a profile when its command
// ends; a POOLSIM_CPUPROFILE_HZ that is not a rate from 1 to 10000 is named
// on stderr and no profile is taken; no path, no profile.
func TestStartCPUProfile(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	startCPUProfile("", "500", &stderr)()
	if stderr.Len() != 0 {
		t.Errorf("no path: stderr %q, want nothing", stderr.String())
	}
	for _, hz := range []string{"x", "0", "-5", "20000", "1.5"} {
		stderr.Reset()
		path := filepath.Join(dir, "bad-"+hz+".prof")
		startCPUProfile(path, hz, &stderr)()
		if !strings.Contains(stderr.String(), "POOLSIM_CPUPROFILE_HZ") || !strings.Contains(stderr.String(), hz) {
			t.Errorf("hz %q: stderr %q, want the variable and the value named", hz, stderr.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("hz %q: a profile was written though the rate was refused", hz)
		}
	}
	for _, hz := range []string{"", "500"} {
		stderr.Reset()
		path := filepath.Join(dir, "ok"+hz+".prof")
		stop := startCPUProfile(path, hz, &stderr)
		x := 0
		for i := 0; i < 1e7; i++ { // something to sample
			x += i % 7
		}
		_ = x
		stop()
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("hz %q: no profile written (%v); stderr %q", hz, err, stderr.String())
		}
	}
}
