package tune

import (
	"math"
	"testing"
)

// The recursions against the closed forms of their smallest cases and a
// value the repository states elsewhere.
func TestErlang(t *testing.T) {
	const tol = 1e-12 // float round-off of a few operations
	tests := []struct {
		name      string
		got, want float64
	}{
		// B(1, a) = a / (1 + a): one server, the loss probability.
		{"B(1, 0.5)", ErlangB(1, 0.5), 0.5 / 1.5},
		// B(2, a) = (a²/2) / (1 + a + a²/2).
		{"B(2, 3)", ErlangB(2, 3), 4.5 / (1 + 3 + 4.5)},
		// B(0, a) = 1: no server loses everything.
		{"B(0, 2)", ErlangB(0, 2), 1},
		// C(1, a) = ρ = a: M/M/1 waits with probability ρ.
		{"C(1, 0.7)", ErlangC(1, 0.7), 0.7},
		// M/M/2: C = 2ρ² / (1 + ρ) with ρ = a/2.
		{"C(2, 1)", ErlangC(2, 1), 2 * 0.25 / 1.5},
		// An unstable queue always waits.
		{"C(3, 3)", ErlangC(3, 3), 1},
		// M/M/1's wait quantile: P(W > t) = ρ e^{−(μ−λ)t}.
		{"M/M/1 p99", MMcWaitQuantile(1, 7, 10, 0.99), math.Log(0.7/0.01) / 3},
		// No wait at the median when fewer than half the tasks wait.
		{"M/M/1 p50, ρ 0.3", MMcWaitQuantile(1, 3, 10, 0.5), 0},
		{"unstable p99", MMcWaitQuantile(2, 20, 10, 0.99), math.Inf(1)},
	}
	for _, tc := range tests {
		if !(math.Abs(tc.got-tc.want) <= tol || tc.got == tc.want) {
			t.Errorf("%s = %.15g; want %.15g", tc.name, tc.got, tc.want)
		}
	}
	// scenarios/examples/fixed-pool-mmc.yaml states its mean wait, C(8, 6.4)
	// / (8·10 − 64) = 0.0286 s (4 digits).
	if w := ErlangC(8, 6.4) / 16; math.Abs(w-0.0286) > 0.00005 {
		t.Errorf("fixed-pool-mmc mean wait %.5f; the example says 0.0286", w)
	}
}
