// Package browsertest finds the headless Chromium that poolsim's browser
// tests drive, and names the flags they start it with.
package browsertest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of the browser. On a developer machine without
// one it skips the test, saying how to install it; under CI=true, where
// test.sh installs it, its absence fails the test.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not on PATH; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); skipping the headless browser check")
	return ""
}

// Flags start Chromium headless, offline from Google's services, with no
// first-run work; a fresh --user-data-dir goes with them.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
}
