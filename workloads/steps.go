package workloads

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// StepKind is what a step of a task's service does.
type StepKind uint8

const (
	// Compute: the task runs on its thread for the step's time.
	Compute StepKind = iota
	// Hold: the task acquires one unit of a resource (a connection, a
	// permit), waiting if none is free, holds it for the step's time and
	// releases it.
	Hold
	// Call: the task submits a sub-task of the step's time to another
	// executor (an @Async pool) and waits for its result (Future.get).
	Call
	// Block: the task blocks for the step's time in a call that is no
	// modelled resource (socket I/O to a downstream, a sleep): a platform
	// thread is held without using a CPU; a virtual thread unmounts unless
	// the call pins it (Step.In).
	Block
)

func (k StepKind) String() string {
	switch k {
	case Hold:
		return "hold"
	case Call:
		return "call"
	case Block:
		return "block"
	}
	return "compute"
}

// Step is one step of a task's service (Phase.Steps): compute for a time
// drawn from Time, hold Resource for a time drawn from Time, or call the
// executor Resource with a sub-task whose service is drawn from Time.
type Step struct {
	Kind     StepKind
	Resource string      // Hold, Call: the resource's name in the scenario
	Time     ServiceSpec // how long the step computes, holds the resource, or the sub-task runs
	// Timeout, for a Hold, replaces the resource's own wait limit with a
	// law drawn per acquisition (nil: the resource's own); for a Call, it
	// is Future.get(timeout) (nil: get() waits for ever).
	Timeout *ServiceSpec
	// In, for a Block or Hold, is where the call happens (a model.Site:
	// 0 plain code, else synchronized, native, ...), which decides whether
	// a virtual thread is pinned (R134–R136). It is only carried here.
	In uint8
}

// DrawnStep is a step of one task with its times drawn.
type DrawnStep struct {
	Kind     StepKind
	Resource string
	Time     time.Duration
	// Timeout is the wait limit of a Hold; OwnTimeout: the resource's own.
	Timeout time.Duration
	In      uint8 // Step.In
}

// OwnTimeout in DrawnStep.Timeout means: the resource's own wait limit.
const OwnTimeout = time.Duration(-1)

// StepSource is a Source some of whose tasks run steps (Phase.Steps).
type StepSource interface {
	Source
	// HasSteps reports whether any task may have steps.
	HasSteps() bool
	// LastSteps returns the steps of the arrival Next returned last (nil:
	// a plain service), valid until the next call to Next.
	LastSteps() []DrawnStep
}

// stepLaws draws a phase's steps. Each step i draws its time from its own
// stream ("step:i", shared by the phases) and its timeout law, if any, from
// "step-timeout:i", so adding a step never changes the others' draws.
type stepLaws struct {
	steps    []Step
	times    []Distribution
	timeouts []Distribution // nil entries: the resource's own
	drawn    []DrawnStep
}

func newStepLaws(steps []Step, seed uint64, streams map[string]rand.Source) (*stepLaws, error) {
	if len(steps) == 0 {
		return nil, &ParamError{"steps", "empty list", "at least one step: {compute: LAW} or {hold: RESOURCE, for: LAW}"}
	}
	stream := func(name string) rand.Source {
		if s, ok := streams[name]; ok {
			return s
		}
		s := NewStream(seed, name)
		streams[name] = s
		return s
	}
	l := &stepLaws{steps: steps, drawn: make([]DrawnStep, len(steps))}
	for i, st := range steps {
		d, err := NewDistribution(st.Time, stream(fmt.Sprintf("step:%d", i)))
		if err != nil {
			if pe, ok := err.(*ParamError); ok {
				pe.Field = fmt.Sprintf("steps[%d].%s", i, pe.Field)
			}
			return nil, err
		}
		l.times = append(l.times, d)
		var t Distribution
		if st.Timeout != nil {
			if t, err = NewDistribution(*st.Timeout, stream(fmt.Sprintf("step-timeout:%d", i))); err != nil {
				if pe, ok := err.(*ParamError); ok {
					pe.Field = fmt.Sprintf("steps[%d].timeout.%s", i, pe.Field)
				}
				return nil, err
			}
		}
		l.timeouts = append(l.timeouts, t)
		l.drawn[i] = DrawnStep{Kind: st.Kind, Resource: st.Resource, Timeout: OwnTimeout, In: st.In}
	}
	return l, nil
}

// draw draws one task's steps and returns their total time.
func (l *stepLaws) draw() time.Duration {
	var total time.Duration
	for i := range l.drawn {
		l.drawn[i].Time = l.times[i].Sample()
		total += l.drawn[i].Time
		if l.timeouts[i] != nil {
			l.drawn[i].Timeout = l.timeouts[i].Sample()
		}
	}
	return total
}

// stepsDist describes a phase's steps as one distribution for the figures
// that need a service law (explanations, closed forms): its mean and
// variance are those of the steps' total time, the steps being drawn
// independently. The wait for a resource is not part of it. Sample draws
// the steps.
type stepsDist struct{ l *stepLaws }

func (d stepsDist) Sample() time.Duration { return d.l.draw() }

func (d stepsDist) Mean() float64 {
	m := 0.0
	for _, t := range d.l.times {
		m += t.Mean()
	}
	return m
}

func (d stepsDist) Variance() float64 {
	v := 0.0
	for _, t := range d.l.times {
		v += t.Variance()
	}
	return v
}

func (d stepsDist) String() string {
	s := "steps("
	for i, st := range d.l.steps {
		if i > 0 {
			s += ", "
		}
		if st.Kind == Block {
			s += "block " + d.l.times[i].String()
		} else if st.Kind != Compute {
			s += st.Kind.String() + " " + st.Resource + " " + d.l.times[i].String()
		} else {
			s += "compute " + d.l.times[i].String()
		}
	}
	return s + ")"
}

// ServiceDrawer draws service times — and steps — for tasks that do not
// come from a Source: the requests of closed-loop users, which submit when
// their previous request ended and a think time passed. It draws from the
// same streams as a Source built from the same phase ("service", "step:i").
type ServiceDrawer struct {
	dist  Distribution
	steps *stepLaws
}

// NewServiceDrawer returns a drawer of phase's service (its law, or its
// steps; a split law is not supported) with streams derived from seed.
func NewServiceDrawer(ph Phase, seed uint64) (*ServiceDrawer, error) {
	if ph.Steps != nil {
		l, err := newStepLaws(ph.Steps, seed, map[string]rand.Source{})
		if err != nil {
			return nil, err
		}
		return &ServiceDrawer{dist: stepsDist{l}, steps: l}, nil
	}
	if ph.Split != nil {
		return nil, &ParamError{"service", "closed-loop users take a plain service law or steps, not a cpu/blocking split", "a law, or steps"}
	}
	d, err := NewDistribution(ph.Service, NewStream(seed, StreamService))
	if err != nil {
		return nil, err
	}
	return &ServiceDrawer{dist: d}, nil
}

// Draw draws one task's service time and its steps (nil for a plain law;
// valid until the next Draw).
func (s *ServiceDrawer) Draw() (time.Duration, []DrawnStep) {
	if s.steps != nil {
		return s.steps.draw(), s.steps.drawn
	}
	return s.dist.Sample(), nil
}
