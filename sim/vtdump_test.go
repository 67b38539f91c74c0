package sim_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/threaddump"
)

// TestVTDumpReadsBack: a virtual-thread run's snapshots in the shape of
// jcmd Thread.dump_to_file -format=json (R138), read by the reader of real
// dumps, give the engine's own counts at that instant (the snapshot's
// header line): live, mounted, pinned, runnable and parked virtual
// threads, carriers and busy carriers.
func TestVTDumpReadsBack(t *testing.T) {
	for _, tc := range []struct{ file, at string }{
		{"../scenarios/examples/virtual-pinning.yaml", "[1m, 90s]"},
		{"../scenarios/examples/virtual-pinning.yaml --set jvm.version=25", "[1m]"},
		{"../scenarios/examples/tomcat-virtual-hikari.yaml", "[2m]"},
	} {
		f := strings.Fields(tc.file)
		sets := []string{"snapshots=" + tc.at}
		if len(f) == 3 {
			sets = append(sets, f[2])
		}
		sc, err := scenarios.Load(f[0], sets)
		if err != nil {
			t.Fatal(err)
		}
		var snaps bytes.Buffer
		res, err := sim.Run(context.Background(), sc, sim.Options{Snapshots: &snaps})
		if err != nil {
			t.Fatal(err)
		}
		var headers []string
		for _, l := range strings.Split(snaps.String(), "\n") {
			if strings.HasPrefix(l, "pool ") {
				headers = append(headers, l)
			}
		}
		if len(res.VTDumps) == 0 || len(res.VTDumps) != len(headers) {
			t.Fatalf("%s: %d JSON dumps for %d snapshots", tc.file, len(res.VTDumps), len(headers))
		}
		for i, d := range res.VTDumps {
			dump, err := threaddump.Parse(bytes.NewReader(d.JSON), "snapshot.json")
			if err != nil {
				t.Fatalf("%s at %v: %v", tc.file, d.At, err)
			}
			v := threaddump.SummariseVirtual(dump)
			if v == nil {
				t.Fatalf("%s at %v: no virtual threads read back", tc.file, d.At)
			}
			sites := map[string]int{}
			for _, s := range v.Sites {
				sites[s.Site] += s.Count
			}
			runnable := sites["waiting for a carrier"]
			parked := v.Threads - v.Mounted - runnable
			// The engine's header: "pool RUNNING: N virtual threads (threadCount()): M mounted on a carrier (RUNNABLE, P of them pinned ...), R runnable ..., K parked ...; C carriers ..., B busy ..."
			want := headers[i]
			got := fmt.Sprintf("pool RUNNING: %d virtual threads (threadCount()): %d mounted on a carrier (RUNNABLE, %d of them pinned in a blocking call), %d runnable waiting for a carrier (RUNNABLE), %d parked (WAITING/TIMED_WAITING, unmounted); %d carriers ForkJoinPool-1-worker-N, %d busy",
				v.Threads, v.Mounted, v.Pinned, runnable, parked, v.Carriers, v.CarriersBusy)
			if v.CarrierPool == "" {
				// No carrier runs a virtual thread: the reader does not
				// tell the scheduler's ForkJoinPool from another one, so
				// it counts no carriers; the engine's must all be idle.
				got = got[:strings.LastIndex(got, ";")]
				if !strings.Contains(want, ", 0 busy") {
					t.Errorf("%s at %v: no busy carrier read back, the engine says %s", tc.file, d.At, want)
				}
			}
			if !strings.HasPrefix(want, got) {
				t.Errorf("%s at %v: the dump reads back as\n  %s\nthe engine says\n  %s", tc.file, d.At, got, want)
			}
		}
	}
}

// TestVTDumpHeldIsNotPinned: a blocking call that holds its carrier
// without pinning it (R136) is dumped as the JDK shows it — JDK 21's
// Object.wait waits in wait0 inside Blocker.begin, a file read runs in
// native code (RUNNABLE) — not as a park on the carrier
// (parkOnCarrierThread, R134). Before the fix both were dumped as pinned
// parks, so `poolsim jstack` said "8 pinned … no carrier is added for it"
// of a run whose compensation had started 7 carriers.
func TestVTDumpHeldIsNotPinned(t *testing.T) {
	for _, tc := range []struct {
		site        string
		jdk         int
		compensated bool // the reader can tell (Object.wait on 21–23)
	}{
		{"object-wait", 21, true},
		{"file-io", 21, false},
		{"file-io", 25, false},
	} {
		p := filepath.Join(t.TempDir(), "s.yaml")
		text := fmt.Sprintf(`name: held
seed: 1
duration: 1m
warmup: 10s
sample: 5s
snapshots: [30s]
pool: {preset: virtual}
jvm: {version: %d, parallelism: 2}
workload:
  arrivals: {process: poisson, rate: 100/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - block: {dist: exponential, mean: 40ms}
        in: %s
`, tc.jdk, tc.site)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var snaps bytes.Buffer
		res, err := sim.Run(context.Background(), sc, sim.Options{Snapshots: &snaps})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.VTDumps) != 1 {
			t.Fatalf("%s on %d: %d dumps, want 1", tc.site, tc.jdk, len(res.VTDumps))
		}
		js := res.VTDumps[0].JSON
		if bytes.Contains(js, []byte("parkOnCarrierThread")) {
			t.Errorf("%s on JDK %d: a held, unpinned call dumped as a park on the carrier", tc.site, tc.jdk)
		}
		dump, err := threaddump.Parse(bytes.NewReader(js), "snapshot.json")
		if err != nil {
			t.Fatal(err)
		}
		v := threaddump.SummariseVirtual(dump)
		if v == nil || v.Mounted == 0 {
			t.Fatalf("%s on JDK %d: no mounted virtual thread read back: %+v", tc.site, tc.jdk, v)
		}
		if v.Pinned != 0 {
			t.Errorf("%s on JDK %d: %d read back as pinned, want 0 (R136)", tc.site, tc.jdk, v.Pinned)
		}
		if tc.compensated && v.Compensated == 0 {
			t.Errorf("%s on JDK %d: no compensated wait read back (R134, R136): %+v", tc.site, tc.jdk, v)
		}
		var out strings.Builder
		if err := threaddump.Format(&out, dump); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "no carrier is added") {
			t.Errorf("%s on JDK %d: jstack says no carrier is added:\n%s", tc.site, tc.jdk, out.String())
		}
	}
}
