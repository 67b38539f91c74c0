package sim_test

import (
	"bytes"
	"context"
	"fmt"
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
