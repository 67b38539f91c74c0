package sim

import (
	"context"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
)

// TestIncidentResizeExample: scenarios/examples/incident-resize.yaml, an
// overloaded fixed pool on an unbounded queue. Raising max at 10 min adds
// no thread (R22 starts none; R6/R7: execute grows past core only when
// the offer is refused, and this queue never refuses), so the queue keeps
// growing; raising core at 20 min starts min(20, queued) workers at that
// instant (R21) and the queue drains at about 30/0.1 s − 110/s = 190/s.
func TestIncidentResizeExample(t *testing.T) {
	sc := loadExample(t, "incident-resize.yaml")
	var (
		maxBefore20, poolAt20 int
		queueAt10, queueAt20  int
		drained               time.Duration
	)
	_, err := Run(context.Background(), sc, Options{Observe: func(now time.Duration, p model.Executor) {
		switch {
		case now < 10*time.Minute:
			queueAt10 = p.QueueLen()
			maxBefore20 = max(maxBefore20, p.PoolSize())
		case now < 20*time.Minute:
			queueAt20 = p.QueueLen()
			maxBefore20 = max(maxBefore20, p.PoolSize())
		case now == 20*time.Minute:
			poolAt20 = max(poolAt20, p.PoolSize())
		case drained == 0 && p.QueueLen() == 0:
			drained = now - 20*time.Minute
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if maxBefore20 != 10 {
		t.Errorf("pool reached %d workers before core was raised; setMaximumPoolSize must add none (R6, R7, R22)", maxBefore20)
	}
	// 10 min at a net +10 tasks/s: about 6,000 more queued (Poisson: sd ≈ √(2·110·600) ≈ 360).
	if grew := queueAt20 - queueAt10; grew < 4500 || grew > 7500 {
		t.Errorf("queue grew by %d between 10 and 20 min, want about 6000", grew)
	}
	if poolAt20 != 30 {
		t.Errorf("pool has %d workers right after setCorePoolSize(30) with %d queued, want 30 (R21)", poolAt20, queueAt20)
	}
	want := time.Duration(float64(queueAt20) / 190 * float64(time.Second))
	if drained < want*8/10 || drained > want*5/4 {
		t.Errorf("queue of %d drained in %v after core 30, want about %v", queueAt20, drained, want)
	}
	t.Logf("queue %d at 10 min, %d at 20 min; drained %v after the resize (fluid estimate %v)", queueAt10, queueAt20, drained, want)
}
