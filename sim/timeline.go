package sim

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/model"
)

// TimelineHeader is timeline.csv's header. The first nine columns are fixed
// by CONTRACT.md §2; the rest extend it.
const TimelineHeader = "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected," +
	"discarded,caller_ran,failed,threads_created,threads_exited,core,max," +
	"wait_mean_s,wait_p50_s,wait_p99_s,wait_max_s,response_p99_s,run_state,cpu_runnable"

type timelineWriter struct {
	w   *bufio.Writer
	buf []byte
}

// ResourceColumns are the timeline's columns for a run with resources,
// after TimelineHeader's: the workers blocked waiting for a resource, then
// for each resource (in the scenario's order, prefixed with its name) the
// units that exist, in use, idle, the waiting borrowers and the failed
// acquisitions so far.
func ResourceColumns(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := []string{"blocked"}
	for _, n := range names {
		for _, c := range []string{"total", "in_use", "idle", "waiters", "timeouts"} {
			out = append(out, n+"_"+c)
		}
	}
	return out
}

// ClientColumns are the timeline's columns for a run with callers
// (workload.client or users), after the resources' columns: requests sent,
// answered, failed for good, the callers' timeouts and the retries sent so
// far, and the requests not yet answered or given up now (waiting, or between retries).
var ClientColumns = []string{"client_requests", "client_answered", "client_failed", "client_timeouts", "client_retries", "client_in_flight"}

func newTimelineWriter(w io.Writer, extra []string) *timelineWriter {
	t := &timelineWriter{w: bufio.NewWriterSize(w, 64<<10)}
	t.w.WriteString(TimelineHeader)
	for _, c := range extra {
		t.w.WriteString("," + c)
	}
	t.w.WriteString("\n")
	return t
}

// FormatFloat is the one float format of every output: the shortest
// decimal that reads back to the same float64, so outputs are byte-stable.
func FormatFloat(x float64) string { return string(appendFloat(nil, x)) }

func appendFloat(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return b // an empty cell: no value
	}
	if x == 0 && !math.Signbit(x) {
		return append(b, '0') // what AppendFloat writes, without its work: most waits of a pool that keeps up
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// appendDurSeconds appends d.Seconds() as appendFloat does — the shortest
// decimal that reads back to it — from d's digits where they are that
// decimal: when d.Seconds() is the float nearest to d/1e9 (as the correctly
// rounded float64(d)/1e9 is: both exact below 2^53) and d/1e9 has at most
// 15 significant digits (d below 1e15 ns, eleven and a half days), no other
// decimal of at most 15 digits reads back to the same float (a float64
// holds every 15-digit decimal apart), so none shorter does. The timeline's
// quantiles and maxima are durations; formatting them from their digits
// spares strconv's shortest-float search, most of a row's cost.
func appendDurSeconds(b []byte, d time.Duration) []byte {
	x := d.Seconds()
	if d < 0 || d >= 1e15 || x != float64(d)/1e9 {
		return appendFloat(b, x)
	}
	return appendSeconds(b, d)
}

// appendQuantile appends a comma and h's q-quantile in seconds (nothing
// after the comma when h is empty).
func appendQuantile(b []byte, h *intervalHist, q float64) []byte {
	b = append(b, ',')
	if h.n == 0 {
		return b
	}
	return appendDurSeconds(b, h.quantileDur(q))
}

// appendInt appends v in decimal, as strconv.AppendInt does; the one-digit
// counts of a timeline row (threads by state, rejections) without its
// work.
func appendInt(b []byte, v int64) []byte {
	if uint64(v) < 10 {
		return append(b, byte('0'+v))
	}
	return strconv.AppendInt(b, v, 10)
}

// appendSeconds formats a duration as seconds, exactly.
// appendSeconds formats a duration as decimal seconds, exactly: the
// nanoseconds are printed as digits, never through a float (1360ms is
// "1.36", not "1.3599999999999999").
func appendSeconds(b []byte, d time.Duration) []byte {
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	b = strconv.AppendInt(b, int64(d/time.Second), 10)
	ns := int64(d % time.Second)
	if ns == 0 {
		return b
	}
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + ns%10)
		ns /= 10
	}
	n := 9
	for frac[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, frac[:n]...)
}

func (t *timelineWriter) row(now time.Duration, rec *recorder, p model.Executor, cl *clientState, vt func([]byte) []byte) error {
	b := t.buf[:0]
	b = appendSeconds(b, now)
	for _, v := range [...]int64{int64(rec.poolSize), int64(rec.count[model.Running]), int64(rec.count[model.IdleTimed]), int64(rec.count[model.IdleUntimed]),
		int64(rec.queueLen), rec.submitted, rec.completed, rec.rejected, rec.discarded, rec.callerRan, rec.failed,
		rec.threadsCreated, rec.threadsExited, int64(p.Config().Core), int64(p.Config().Max)} {
		b = append(b, ',')
		b = appendInt(b, v)
	}
	w, r := rec.ivWait, rec.ivResponse
	b = append(b, ',')
	b = appendFloat(b, w.mean())
	b = appendQuantile(b, w, 0.5)
	b = appendQuantile(b, w, 0.99)
	b = append(b, ',')
	if w.n > 0 {
		b = appendDurSeconds(b, w.max)
	}
	b = appendQuantile(b, r, 0.99)
	b = append(b, ',')
	b = append(b, p.RunState().String()...)
	b = append(b, ',')
	b = appendInt(b, int64(rec.cpuRunnable))
	if rec.res != nil {
		b = append(b, ',')
		b = appendInt(b, int64(rec.blocked))
		for i := range rec.res {
			r := &rec.res[i]
			for _, v := range [...]int64{int64(r.cur.Total), int64(r.cur.InUse), int64(r.cur.Idle), int64(r.cur.Waiters), r.timeouts} {
				b = append(b, ',')
				b = appendInt(b, v)
			}
		}
	}
	if cl != nil {
		for _, v := range [...]int64{cl.requests, cl.succeeded, cl.failed, cl.timeouts, cl.retries, cl.requests - cl.succeeded - cl.failed} {
			b = append(b, ',')
			b = appendInt(b, v)
		}
	}
	if vt != nil {
		b = vt(b)
	}
	b = append(b, '\n')
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

func (t *timelineWriter) flush() error { return t.w.Flush() }
