package sim

import (
	"fmt"
	"io"
	"strings"

	"github.com/poolsim/poolsim/model"
)

// snapshot writes a thread-dump-like view of every worker (snapshots.txt):
// the pool's state, then each worker in creation order with what it runs
// or waits for — in the words of its executor family
// (model.Executor.DescribeIdle) — and its place in the hand-off order.
func (e *Engine) snapshot() error {
	w := e.opt.Snapshots
	if w == nil {
		return nil
	}
	p := e.pool
	cfg := p.Config()
	prefix := e.sc.Pool.ThreadNamePrefix
	rank := map[*model.Worker]int{}
	n := 0
	p.Parked(func(w *model.Worker) { n++; rank[w] = n })
	var b strings.Builder
	fmt.Fprintf(&b, "=== snapshot at %v (t=%ss) ===\n", e.now, appendSeconds(nil, e.now))
	if e.vt != nil {
		b.WriteString(e.vtSnapshotHeader())
		d, err := e.vtDump()
		if err != nil {
			return err
		}
		e.vtDumps = append(e.vtDumps, VTDump{At: e.now, JSON: d})
	} else {
		fmt.Fprintf(&b, "pool %s: %d workers: %d busy (RUNNABLE), %d idle TIMED_WAITING in %s, %d idle WAITING in %s.take(); queue %d; core %d, max %s, keepAlive %v, allowCoreThreadTimeOut %v; hand-off %v\n",
			p.RunState(), p.PoolSize(), p.ActiveCount(), p.Count(model.IdleTimed), p.TimedWaitSite(),
			p.Count(model.IdleUntimed), cfg.Queue.JavaName(), p.QueueLen(), cfg.Core, model.SizeString(cfg.Max), cfg.KeepAlive, cfg.CoreTimeOut, p.HandOff())
	}
	for i, r := range e.res {
		st := r.Stats()
		fmt.Fprintf(&b, "resource %s (%s): %d units, %d in use, %d idle, %d waiting; %d failed acquisitions so far\n",
			r.Name(), e.rec.res[i].spec.Type, st.Total, st.InUse, st.Idle, st.Waiters, e.rec.res[i].timeouts)
	}
	if c, ok := p.(interface{ CancelledQueued() int }); ok {
		if n := c.CancelledQueued(); n > 0 {
			fmt.Fprintf(&b, "(cancelled but still queued: %d of %d; with removeOnCancelPolicy false a cancelled task keeps its place, and is waited for, until due; then a worker skips it, R97)\n", n, p.QueueLen())
		}
	}
	p.Workers(func(w *model.Worker) {
		fmt.Fprintf(&b, "%q ", fmt.Sprintf("%s%d", prefix, w.ID))
		if w.State() == model.Running {
			t, _ := w.Task()
			if h := e.ws[w.Slot()].prog; h != 0 {
				b.WriteString(e.programNote(h, &t))
			} else {
				fmt.Fprintf(&b, "RUNNABLE task %d for %v of %v (waited %v in queue)%s", t.ID, e.now-w.Since(), t.Service, w.Since()-t.Arrival, e.hostNote(w))
			}
		} else {
			b.WriteString(p.DescribeIdle(e.now, w, rank[w]))
		}
		fmt.Fprintf(&b, "; started at %v, %d tasks done\n", w.Created, w.Completed)
	})
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// programNote describes a worker running a task with steps: parked waiting
// for a resource (as a thread dump shows it), or running a step.
func (e *Engine) programNote(h int32, t *model.Task) string {
	if e.vt != nil {
		return e.vtNote(h, t)
	}
	p := &e.progs[h-1]
	n := len(p.steps)
	if p.waiting {
		r := e.res[p.held-1]
		return fmt.Sprintf("%s, for %v (task %d, step %d of %d)", r.Describe(), e.now-p.waitFrom, t.ID, p.next+1, n)
	}
	st := p.steps[min(p.next, n-1)]
	what := "computing"
	if p.held != 0 {
		what = "holding " + st.Resource
	}
	return fmt.Sprintf("RUNNABLE task %d, step %d of %d: %s for %v (waited %v in queue)", t.ID, p.next+1, n, what, st.Time, p.w.Since()-t.Arrival)
}
