package model

import (
	"path/filepath"
	"testing"
	"time"
)

// TestScriptsThroughNotifier runs every scripted test again with the pool
// reporting to a Notifier, which rebuilds each notification's Event with
// StartedEvent, WorkerChangedEvent and TimerArmedEvent: the scripts' output
// — every event of every family, in order — must be the same as through a
// plain Observer, and the three kinds must never reach Observe.
func TestScriptsThroughNotifier(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	if *rewrite {
		t.Skip("-rewrite writes the expected output through the plain Observer")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScriptWith(t, file, true) })
	}
}

// notifyingEnv is the script's event loop as a Notifier.
type notifyingEnv struct{ e *scriptEnv }

func (n notifyingEnv) Observe(ev *Event) {
	switch ev.Kind {
	case Started, WorkerChanged, TimerArmed:
		n.e.t.Errorf("%v reached Observe of a Notifier", ev.Kind)
	}
	n.e.Observe(ev)
}

func (n notifyingEnv) OnStarted(at time.Duration, w *Worker, t *Task, handoff bool) {
	ev := StartedEvent(at, w, t, handoff)
	n.e.Observe(&ev)
}

func (n notifyingEnv) OnWorkerChanged(at time.Duration, w *Worker, from, to State) {
	ev := WorkerChangedEvent(at, w, from, to)
	n.e.Observe(&ev)
}

func (n notifyingEnv) OnTimerArmed(at time.Duration, w *Worker) {
	ev := TimerArmedEvent(at, w)
	n.e.Observe(&ev)
}
