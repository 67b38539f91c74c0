package conformance

import (
	"math"
	"testing"
)

// tomcatCases are the scripts TestCompareTomcat runs on Tomcat 10.1's ThreadPoolExecutor with
// its TaskQueue and on the simulator, on the same 100 ms grid as jdkCases.
func tomcatCases() []compareCase {
	return []compareCase{
		{
			// core 1, max 3, unbounded TaskQueue. The constructor prestarts worker 1 (R65),
			// which takes task 1 from the queue (submittedCount 1 ≤ pool size 1, R67 step 3).
			// Tasks 2 and 3 find submittedCount above the pool size and the pool below max:
			// the queue refuses them and new threads run them (R67 step 4) — growth before
			// queueing. At max, tasks 4 and 5 queue (step 2). submittedCount counts queued
			// and running tasks (R64). Once idle, task 6 goes to the longest waiting worker,
			// 3 (R47); workers 1 and 2 expire (wc > core), worker 3 survives in take() (R16).
			name: "growth to max before queueing, submittedCount, shrinking (R64 R65 R67 R47 R16)",
			script: Script{
				Pool: Pool{Kind: KindTomcat, Core: 1, Max: 3, KeepAliveMs: 500},
				Submits: []Submit{
					task(1, 20, 600), task(2, 120, 600), task(3, 220, 600),
					task(4, 320, 300), task(5, 320, 300),
					task(6, 1120, 100),
				},
				EndMs: 1820,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6}, []int{1, 2, 3, 1, 2, 3}, "R67 growth, then queueing at max; R47")
				if x := simSampleAt(t, m, 410); x.PoolSize != 3 || x.QueueLen != 2 || x.SubmittedCount != 5 {
					t.Errorf("at 410 ms: %+v, want pool 3, queue 2, submittedCount 5 (R64, R67)", x)
				}
				wantSurvivors(t, m, []int{3}, "workers 1 and 2 waited longest without work (R16)")
			},
		},
		{
			// TaskQueue(2), core 1, max 2, Tomcat's RejectPolicy: the pool grows to max (R67),
			// then tasks queue; task 5 finds the queue full and is rejected (R66), while task
			// 6, offered when the queue has room again, is queued, not rejected.
			name: "bounded TaskQueue rejects only when full (R66 R67)",
			script: Script{
				Pool: Pool{Kind: KindTomcat, Core: 1, Max: 2, KeepAliveMs: 5000, Capacity: 2},
				Submits: []Submit{
					task(1, 20, 600), task(2, 120, 700),
					task(3, 220, 300), task(4, 220, 300),
					task(5, 320, 100),
					task(6, 720, 100),
				},
				EndMs: 1320,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6}, []int{1, 2, 1, 2, -1, 1}, "R66: only task 5, offered to a full queue, is rejected")
				if x := simSampleAt(t, m, 410); x.QueueLen != 2 || x.Rejected != 1 {
					t.Errorf("at 410 ms: %+v, want a full queue of 2 and 1 rejection", x)
				}
			},
		},
		{
			// Caller-runs on Tomcat: task 4 finds the queue full at max and runs on the
			// submitter (R33). Tomcat counted it in submittedCount on entry to execute, but a
			// task the handler absorbs never reaches afterExecute, so the count stays one too
			// high for good (R64).
			name: "caller-runs leaves submittedCount one too high (R64 R33)",
			script: Script{
				Pool: Pool{Kind: KindTomcat, Core: 1, Max: 2, KeepAliveMs: 5000, Capacity: 1, Rejection: RejectCallerRuns},
				Submits: []Submit{
					task(1, 20, 400), task(2, 120, 400), task(3, 220, 400), task(4, 320, 400),
				},
				EndMs: 920,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4}, []int{1, 2, 1, 0}, "R67 growth, queue at max, R33 caller runs")
				if x := simSampleAt(t, m, 890); x.SubmittedCount != 1 || x.Busy != 0 {
					t.Errorf("at 890 ms: %+v, want all idle with submittedCount 1 (R64)", x)
				}
			},
		},
		{
			// A task that throws on Tomcat: its worker (the prestarted one) exits abruptly
			// and is replaced at once (R14, R17, M5); afterExecute still takes it off
			// submittedCount (R64), so the next task is offered to the queue and handed to
			// the replacement.
			name: "a throwing task: worker replaced, submittedCount back to 0 (R14 R17 R64)",
			script: Script{
				Pool:    Pool{Kind: KindTomcat, Core: 1, Max: 2, KeepAliveMs: 5000},
				Submits: []Submit{failing(1, 20, 100), task(2, 220, 100)},
				EndMs:   420,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2}, []int{1, 2}, "the replacement runs task 2 (R17)")
				if x := simSampleAt(t, m, 170); x.PoolSize != 1 || x.IdleUntimed != 1 || x.SubmittedCount != 0 {
					t.Errorf("at 170 ms: %+v, want the replacement idle in take() and submittedCount 0 (R64)", x)
				}
			},
		},
		plateauCase(),
	}
}

// plateauCase is the seed incident in miniature (R78, R80): a burst grows the pool to six
// threads, then a trickle of one 100 ms task every 300 ms keeps ⌈λ(K + S)⌉ − 1 = 3 workers
// alive, all idle in poll(keepAlive), because the FIFO TaskQueue deals the tasks round-robin
// (R47, R54): a worker's idle gap is 3·300 − 100 = 800 ms < K = 900 ms with three workers,
// and would be 1100 ms > K with four.
//
// Times modulo the 300 ms period: trickle submissions at 20, their ends (and the deadlines of
// the workers that ran them) at 120; the burst's ends, staggered 300 ms apart so that their
// workers park in a known order, and their deadlines at 220. No submission can thus meet an
// end or an expiry.
func plateauCase() compareCase {
	const (
		periodMs    = 300
		serviceMs   = 100
		keepAliveMs = 900
		burst       = 6
		trickleFrom = 320
		endMs       = 3220
	)
	s := Script{Pool: Pool{Kind: KindTomcat, Core: 1, Max: 10, KeepAliveMs: keepAliveMs}, EndMs: endMs}
	for i := 0; i < burst; i++ {
		s.Submits = append(s.Submits, task(i+1, 20, int64(200+periodMs*i))) // ends at 220, 520, …, 1720
	}
	id := 101
	for at := int64(trickleFrom); at <= endMs-200; at += periodMs {
		s.Submits = append(s.Submits, task(id, at, serviceMs))
		id++
	}
	lambda := 1000.0 / periodMs
	plateau := int(math.Ceil(lambda*float64(keepAliveMs+serviceMs)/1000)) - 1 // R78
	return compareCase{
		name:   "burst then trickle: the FIFO plateau ⌈λ(K+S)⌉−1 (R78 R80 R54)",
		script: s,
		expect: func(t *testing.T, m *Simulation) {
			if plateau != 3 {
				t.Fatalf("plateau %d, want 3: the constants changed", plateau)
			}
			last := m.Result.Samples[len(m.Result.Samples)-1]
			if last.PoolSize != plateau || last.IdleTimed != plateau {
				t.Errorf("at the end: %+v, want the plateau %d, all idle in poll (R78)", last, plateau)
			}
			if last.Largest != burst {
				t.Errorf("largest %d, want the burst's %d", last.Largest, burst)
			}
		},
	}
}
