package scenarios

import (
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// Scenario is one experiment, validated and inert: a pool, a workload,
// runtime events and what to record. Loading never runs anything.
type Scenario struct {
	Path        string // the file it came from ("" if built in code)
	Name        string
	Description string
	Seed        uint64
	Duration    time.Duration // virtual time to simulate
	Warmup      time.Duration // steady-state statistics ignore what happens before
	Sample      time.Duration // timeline resolution
	Pool        Pool
	Workload    workloads.Spec
	// WorkloadForm is how the file wrote the workload: "single" (arrivals
	// and service at the top), "phases", "trace", "accesslog", "periodic"
	// or "users" (closed-loop users and a service at the top); what-ifs use
	// it to address keys with --set.
	WorkloadForm string
	// Periodic lists the jobs handed to a ScheduledThreadPoolExecutor's
	// schedule methods beside the ordinary traffic (workload.periodic).
	Periodic  []PeriodicJob
	Events    []Event
	Snapshots []time.Duration
	Limits    Limits
	// Host is the machine: thread costs and an optional CPU limit.
	Host Host
	// JVM is the virtual-thread scheduler and the JDK version (the jvm
	// block, §13): set, defaults filled in, when the pool is a
	// virtual-thread preset; the zero JVM otherwise.
	JVM model.JVM
	// Client is how callers behave (timeouts, retries; nil: they wait for
	// every answer and never retry); Users, when set, are closed-loop
	// callers that replace the arrivals (WorkloadForm "users").
	Client *Client
	Users  *Users
	// Resources are what tasks hold for part of their service
	// (connection pools, semaphore bulkheads), in file order.
	Resources []Resource
	// Text is the scenario file's text, as given; Sets are the --set
	// overrides applied to it, in order. Parse(Text, Path, Sets) loads the
	// same scenario again; Listing and EditedText render it for reports.
	Text []byte
	Sets []string
}

// Pool is the pool's configuration plus what names it.
type Pool struct {
	// Preset is the preset the configuration started from (jdk, fixed,
	// cached, single, tomcat, ...).
	Preset string
	// ThreadNamePrefix names workers in snapshots, as the thread factory
	// would: pool-1-thread-, http-nio-8080-exec-, task-, ...
	ThreadNamePrefix string
	model.Config
}

// Event is a runtime change at a virtual time, as the JDK setters or
// shutdown calls would make it. Nil fields are left unchanged.
type Event struct {
	At          time.Duration
	Line        int // where it was written, for error messages
	Core        *int
	Max         *int
	KeepAlive   *time.Duration
	CoreTimeOut *bool
	Shutdown    string // "", "graceful" (shutdown()) or "now" (shutdownNow())
}

// Change is the model's runtime change the event makes: its setter calls
// and shutdown call, applied through model.Executor.Apply.
func (ev Event) Change() model.Change {
	c := model.Change{Core: ev.Core, Max: ev.Max, KeepAlive: ev.KeepAlive, CoreTimeOut: ev.CoreTimeOut}
	switch ev.Shutdown {
	case "graceful":
		c.Shutdown = model.Graceful
	case "now":
		c.Shutdown = model.Immediate
	}
	return c
}

// EventKey is the key, under an event, of a field a model.ConfigError of
// Apply names: "set.core" for a setter's field, the field itself
// (shutdown) otherwise.
func EventKey(field string) string {
	switch field {
	case "core", "max", "keepAlive", "allowCoreThreadTimeOut":
		return "set." + field
	}
	return field
}

// Limits protect the user's machine from scenarios that explode.
type Limits struct {
	// MaxQueued stops the run, reporting the growth as a finding, when the
	// queue holds this many tasks. 0 = unset: sim.DefaultMaxQueued applies
	// (and sim.DefaultMaxThreads to an unset Pool.ThreadLimit).
	MaxQueued int
}
