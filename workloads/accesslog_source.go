package workloads

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/poolsim/poolsim/workloads/accesslog"
)

// AccessLogSpec replays a Tomcat / Spring Boot access log: each logged
// request becomes a task arriving when the request began, running as long
// as the log says it took.
type AccessLogSpec struct {
	File    string // the log file
	Pattern string // the AccessLogValve pattern, or "common" / "combined"
	// DurationUnit is the unit of %D: "us" (Tomcat 10 and later) or "ms"
	// (Tomcat 9 and earlier). Required when %D is the pattern's only
	// duration; there is deliberately no default.
	DurationUnit string
	// MaxBadFraction of non-blank lines may fail to parse (default 0: none).
	MaxBadFraction float64
	// Location is the time zone of timestamps that print none ("" = UTC).
	Location string
}

func (a AccessLogSpec) options() (accesslog.Options, error) {
	opt := accesslog.Options{Pattern: a.Pattern, MaxBadFraction: a.MaxBadFraction}
	if a.DurationUnit != "" {
		u, err := accesslog.ParseDUnit(a.DurationUnit)
		if err != nil {
			return opt, &ParamError{"durationUnit", err.Error(), "us (Tomcat 10+) or ms (Tomcat 9 and earlier)"}
		}
		opt.DurationUnit = u
	}
	if a.Location != "" {
		loc, err := time.LoadLocation(a.Location)
		if err != nil {
			return opt, &ParamError{"timezone", fmt.Sprintf("unknown time zone %q", a.Location), "an IANA zone such as Europe/Paris"}
		}
		opt.Location = loc
	}
	return opt, nil
}

// accessLogSource adapts the access-log reader to a Source.
type accessLogSource struct {
	s        *accesslog.Sorter
	spec     AccessLogSpec
	failures *rand.Rand
	failure  float64
	n        int
}

// OpenAccessLog opens an access log for replay, in arrival order (two
// passes; memory bounded by the log's disorder, not its length).
func OpenAccessLog(spec AccessLogSpec, failure float64, seed uint64) (Source, error) {
	opt, err := spec.options()
	if err != nil {
		return nil, err
	}
	s, err := accesslog.OpenSorted(spec.File, opt)
	if err != nil {
		return nil, err
	}
	return &accessLogSource{s: s, spec: spec, failure: failure, failures: rand.New(NewStream(seed, StreamFailures))}, nil
}

func (a *accessLogSource) Next() (Arrival, bool) {
	r, ok := a.s.Next()
	if !ok {
		return Arrival{}, false
	}
	a.n++
	arr := Arrival{At: r.Arrival, Service: r.Service}
	if a.failure > 0 {
		arr.Fails = a.failures.Float64() < a.failure
	}
	return arr, true
}

func (a *accessLogSource) Err() error   { return a.s.Err() }
func (a *accessLogSource) Close() error { return a.s.Close() }

// Notes reports what the log held, bad lines included: they are counted
// and shown, never silently dropped.
func (a *accessLogSource) Notes() []string {
	st := a.s.Stats()
	note := fmt.Sprintf("access log %s: %d lines, %d requests replayed, %d bad, %d blank", a.spec.File, st.Lines, a.n, st.Bad, st.Blank)
	if st.Inconsistent > 0 {
		note += fmt.Sprintf(", %d with %%D disagreeing with %%T", st.Inconsistent)
	}
	out := []string{note}
	for _, e := range st.BadExamples {
		out = append(out, "bad line: "+e.Error())
	}
	return out
}

// Noter is implemented by sources with something to report after a run
// (an access log's bad lines).
type Noter interface {
	Notes() []string
}
