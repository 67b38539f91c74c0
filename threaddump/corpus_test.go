package threaddump

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpus reads every real-world thread dump in testdata/corpus (their
// sources and licences are in testdata/corpus/SOURCES). Each file is read
// right — the values below were read from the files by hand (thread
// headers counted, names grepped), never taken from Parse — or refused
// with the one-line error naming what it is.
func TestCorpus(t *testing.T) {
	type pool struct {
		prefix  string
		threads int
	}
	for _, tc := range []struct {
		file    string
		refused string // a substring of the refusal; "" when the file is read
		form    Form
		vm      string // the "Full thread dump" line's VM, or the JSON's runtime version
		threads int    // thread headers in the (last) dump
		virtual int    // of which virtual threads
		pool    pool   // one pool, counted by its name prefix; zero to skip
	}{
		{file: "dumpling-openjdk-1.6.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (23.25-b01 mixed mode)", threads: 15},
		{file: "dumpling-openjdk-1.7.log", form: FormHotSpot, vm: "OpenJDK Server VM (24.51-b03 mixed mode)", threads: 19},
		{file: "dumpling-openjdk-1.7.0_60.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (24.60-b09 mixed mode)", threads: 35},
		{file: "dumpling-openjdk-1.8.log", form: FormHotSpot, vm: "OpenJDK Server VM (25.11-b02 mixed mode)", threads: 16},
		{file: "dumpling-openjdk-11.0.2.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (11.0.2+7 mixed mode)", threads: 24},
		// 143 headers: four thread names hold quotes ("Remoting "shorthostname" write-1").
		{file: "dumpling-oraclejdk-1.7.0_51.log", form: FormHotSpot, vm: "Java HotSpot(TM) 64-Bit Server VM (24.51-b03 mixed mode)", threads: 143,
			pool: pool{"ajp-/127.0.0.1:8009-", 30}},
		{file: "dumpling-oraclejdk-1.9.log", form: FormHotSpot, vm: "Java HotSpot(TM) 64-Bit Server VM (9-ea+132 mixed mode)", threads: 35},
		{file: "dumpling-crlf.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (24.65-b04 mixed mode)", threads: 2},
		// JDK 6 with a deadlock report after the dump: its quoted names are not threads.
		{file: "dumpling-deadlock.log", form: FormHotSpot, vm: "Java HotSpot(TM) 64-Bit Server VM (20.14-b01 mixed mode)", threads: 18},
		{file: "dumpling-jrockit-1.5.log", refused: "JRockit thread dump"},
		{file: "dumpling-jrockit-1.6.log", refused: "JRockit thread dump"},
		{file: "openj9-docs-javacore-threads.txt", refused: "OpenJ9 javacore"},
		{file: "tda-test.log", refused: "ThreadMXBean-style dump"},
		{file: "tda-visualvmremote.log", form: FormHotSpot, vm: "Java HotSpot(TM) 64-Bit Server VM (11.0-b15 mixed mode)", threads: 119,
			pool: pool{"httpWorkerThread-4848-", 20}},
		{file: "tda-testwithhistogram.log", form: FormHotSpot, vm: "Java HotSpot(TM) Client VM (1.5.0_06-b05 mixed mode)", threads: 14},
		{file: "tda-test64bit.log", form: FormHotSpot, vm: "Java HotSpot(TM) 64-Bit Server VM (1.5.0_13-b05 mixed mode)", threads: 3},
		{file: "tda-urlthread.log", form: FormHotSpot, vm: "Java HotSpot(TM) Server VM (1.6.0_03-b05 mixed mode)", threads: 70},
		{file: "tda-java8dump.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (25.91-b14 mixed mode)", threads: 21},
		{file: "tda-java11dump.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (11.0.6+10 mixed mode)", threads: 14},
		{file: "tda-java21dump.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (21.0.2+13-LTS mixed mode, sharing)", threads: 18, virtual: 5},
		{file: "tda-java21dump_utf16.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (21.0.2+13-LTS mixed mode, sharing)", threads: 18, virtual: 5},
		{file: "tda-jstack_dump.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (21.0.9+10-LTS mixed mode, sharing)", threads: 28},
		{file: "tda-carrier_stuck.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (21.0.2+13-LTS mixed mode, sharing)", threads: 4, virtual: 1},
		// Two dumps 60 s apart: the last one, two threads.
		{file: "tda-jdk11_long_running.log", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (11.0.12+7-LTS mixed mode)", threads: 2},
		{file: "tda-intellij_dump.json", form: FormJSON, vm: "21.0.10+7-LTS", threads: 8},
		{file: "jthreaddump-thread-pool.txt", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (25+36-LTS mixed mode, sharing)", threads: 64,
			pool: pool{"Worker-", 10}},
		// jstack on JDK 25: the 10 virtual threads mounted on its carriers (R138).
		{file: "jthreaddump-many-virtual-threads.txt", form: FormHotSpot, vm: "OpenJDK 64-Bit Server VM (25+36-LTS mixed mode, sharing)", threads: 64, virtual: 10,
			pool: pool{"ForkJoinPool-1-worker-", 12}},
		// jcmd's output without its "Full thread dump" line.
		{file: "jthreaddump-thread-dump-jcmd.txt", form: FormHotSpot, threads: 4},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d, err := ParseFile(filepath.Join("testdata", "corpus", tc.file))
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), tc.file) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got %v, want a one-line refusal naming the file and %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			virtual := 0
			for _, th := range d.Threads {
				if th.Virtual {
					virtual++
				}
			}
			if d.Form != tc.form || d.VM != tc.vm || len(d.Threads) != tc.threads || virtual != tc.virtual {
				t.Errorf("form %s, VM %q, %d threads (%d virtual); want %s, %q, %d (%d)", d.Form, d.VM, len(d.Threads), virtual, tc.form, tc.vm, tc.threads, tc.virtual)
			}
			if tc.pool.prefix == "" {
				return
			}
			for _, p := range Summarise(d) {
				if p.Prefix == tc.pool.prefix {
					if p.Threads != tc.pool.threads {
						t.Errorf("pool %s: %d threads, want %d", p.Prefix, p.Threads, tc.pool.threads)
					}
					return
				}
			}
			t.Errorf("no pool %q", tc.pool.prefix)
		})
	}
}
