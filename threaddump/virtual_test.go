package threaddump

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// virtualWant is what SummariseVirtual must report for a dump of
// testdata/java/VirtualHikari.java (R137, R138): 24 request virtual
// threads, 20 waiting for one of HikariCP's 4 connections and 4 holding one
// in their query (a sleep); 2 pinned in class initializers; 1 computing —
// on 4 carriers, 3 of them busy.
type virtualWant struct {
	threads, carriers, busy, mounted, pinned int
	sites                                    map[string]int // site → count
	pinnedBy                                 []PinCause
}

func checkVirtual(t *testing.T, name string, v *Virtual, want virtualWant) {
	t.Helper()
	if v == nil {
		t.Fatalf("%s: no virtual-thread summary", name)
	}
	got := virtualWant{threads: v.Threads, carriers: v.Carriers, busy: v.CarriersBusy, mounted: v.Mounted, pinned: v.Pinned,
		sites: map[string]int{}, pinnedBy: v.PinnedBy}
	for _, s := range v.Sites {
		got.sites[s.Site] += s.Count
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %+v\nwant %+v", name, got, want)
	}
}

var (
	clinitPins = []PinCause{{Cause: "class initializer", Count: 2}}
	// jcmd Thread.dump_to_file -format=json on JDK 25: every virtual
	// thread, and the carrier of each mounted one.
	hikariJSON = virtualWant{threads: 27, carriers: 4, busy: 3, mounted: 3, pinned: 2, pinnedBy: clinitPins,
		sites: map[string]int{"HikariCP ConcurrentBag.borrow": 20, "Thread.sleep": 4, "Thread.sleep, pinned": 2, "running": 1}}
	// The plain-text form: the same threads, but no carrier per virtual
	// thread, so the computing one may be running or queued.
	hikariText = virtualWant{threads: 27, carriers: 4, busy: 3, mounted: 3, pinned: 2, pinnedBy: clinitPins,
		sites: map[string]int{"HikariCP ConcurrentBag.borrow": 20, "Thread.sleep": 4, "Thread.sleep, pinned": 2, "running or waiting for a carrier": 1}}
	// jstack: only the 3 mounted ones, under their carriers.
	hikariJstack = virtualWant{threads: 3, carriers: 4, busy: 3, mounted: 3, pinned: 2, pinnedBy: clinitPins,
		sites: map[string]int{"Thread.sleep, pinned": 2, "running": 1}}
)

// TestSummariseVirtual reads the three dumps of one VirtualHikari run
// (Temurin 25.0.3, parallelism 4) and the jthreaddump corpus's jstack of
// 10 computing virtual threads.
func TestSummariseVirtual(t *testing.T) {
	for _, tc := range []struct {
		file string
		want virtualWant
	}{
		{"jdk25-virtual-hikari.json", hikariJSON},
		{"jdk25-virtual-hikari.txt", hikariText},
		{"jdk25-virtual-hikari-jstack.txt", hikariJstack},
		{"corpus/jthreaddump-many-virtual-threads.txt", virtualWant{threads: 10, carriers: 12, busy: 10, mounted: 10,
			sites: map[string]int{"running": 10}}},
	} {
		d, err := ParseFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		checkVirtual(t, tc.file, SummariseVirtual(d), tc.want)
	}
	// A dump without virtual threads or busy carriers has no summary.
	d, err := ParseFile(filepath.Join("testdata", "jdk17-jstack-l.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if v := SummariseVirtual(d); v != nil {
		t.Errorf("jdk17-jstack-l.txt: got %+v, want no virtual-thread summary", v)
	}
}

// TestJVMVirtualHikari runs testdata/java/VirtualHikari.java on Temurin 25
// with HikariCP 2.7.9, takes a JSON dump, a plain-text dump and a jstack,
// and checks each summary against what the program set up.
func TestJVMVirtualHikari(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: starts a JVM")
	}
	home := jdk25Home()
	need(t, exists(filepath.Join(home, "bin", "jcmd")), home+" (Temurin 25, for virtual threads; THREADDUMP_JDK25 names another JDK 25)")
	jars := []string{"/usr/share/java/HikariCP.jar", "/usr/share/java/slf4j-api.jar", "/usr/share/java/slf4j-nop.jar"}
	for _, j := range jars {
		need(t, exists(j), j+" (Debian libhikaricp-java / libslf4j-java)")
	}
	classes := t.TempDir()
	cp := strings.Join(append([]string{classes}, jars...), string(os.PathListSeparator))
	bin := func(tool string) string { return filepath.Join(home, "bin", tool) }
	if out, err := exec.Command(bin("javac"), "-d", classes, "-cp", cp, filepath.Join("testdata", "java", "VirtualHikari.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(bin("java"), "-Djdk.virtualThreadScheduler.parallelism=4", "-Djdk.virtualThreadScheduler.maxPoolSize=4", "-cp", cp, "VirtualHikari")
	startReady(t, cmd, 2*time.Minute)
	pid := strconv.Itoa(cmd.Process.Pid)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string // FILE is replaced by the dump's path; "" means stdout
		want virtualWant
	}{
		{"dump-json", []string{"jcmd", pid, "Thread.dump_to_file", "-format=json", "FILE"}, hikariJSON},
		{"dump-text", []string{"jcmd", pid, "Thread.dump_to_file", "FILE"}, hikariText},
		{"jstack", []string{"jstack", pid}, hikariJstack},
	} {
		file := filepath.Join(dir, tc.name)
		args := append([]string(nil), tc.args...)
		toFile := false
		for i, a := range args {
			if a == "FILE" {
				args[i], toFile = file, true
			}
		}
		out, err := exec.Command(bin(args[0]), args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		if !toFile {
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if *captureDir != "" {
			if b, err := os.ReadFile(file); err == nil {
				os.WriteFile(filepath.Join(*captureDir, "virtual-hikari-"+tc.name), b, 0o644)
			}
		}
		d, err := ParseFile(file)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkVirtual(t, tc.name, SummariseVirtual(d), tc.want)
	}
}

// TestFormatVirtualMountedWithoutCarriers: a JSON dump whose carriers are
// missing (cut or edited) still names, for each mounted virtual thread,
// its carrier (R138). The summary said "carriers: none running a virtual
// thread" beside "1 running: mounted on a carrier" and 2 pinned ones; it
// now says the carriers are absent and counts the mounted threads.
func TestFormatVirtualMountedWithoutCarriers(t *testing.T) {
	data, err := os.ReadFile("testdata/jdk25-virtual-hikari.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, c := range doc["threadDump"].(map[string]any)["threadContainers"].([]any) {
		c := c.(map[string]any)
		if strings.HasPrefix(c["container"].(string), "ForkJoinPool-1/") {
			dropped += len(c["threads"].([]any))
			c["threads"], c["threadCount"] = []any{}, "0"
		}
	}
	if dropped == 0 {
		t.Fatal("no carrier container in the test dump")
	}
	edited, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(bytes.NewReader(edited), "no-carriers.json")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Format(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "none running a virtual thread") {
		t.Errorf("mounted virtual threads, yet 'none running':\n%s", out)
	}
	if !strings.Contains(out, "carriers: not in this dump, though 3 virtual threads name the carrier they are mounted on: 1 running, 2 pinned (2 by a class initializer)") {
		t.Errorf("want the 3 mounted virtual threads counted without their carriers:\n%s", out)
	}
}
