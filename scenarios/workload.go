package scenarios

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/workloads"
)

// workload decodes the workload block: phases, or one phase's arrivals and
// service at the top, or a trace.
func (d *decoder) workload(n *yaml.Node, path string, sc *Scenario, dir string) error {
	w := &sc.Workload
	var top workloads.Phase
	var topArr, topSvc, topPri, phasesNode, traceNode, logNode, periodicNode, usersNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"phases", func(n *yaml.Node, p string) error {
			phasesNode = n
			items, err := d.sequence(n, p, "a list of phases")
			if err != nil {
				return err
			}
			if len(items) == 0 {
				return d.errAt(n, p, "empty list", "at least one phase")
			}
			for i, it := range items {
				ph, err := d.phase(it, fmt.Sprintf("%s[%d]", p, i), dir, i == len(items)-1)
				if err != nil {
					return err
				}
				w.Phases = append(w.Phases, ph)
			}
			return nil
		}},
		{"arrivals", func(n *yaml.Node, p string) (err error) { topArr = n; top.Arrivals, err = d.arrivals(n, p); return }},
		{"service", func(n *yaml.Node, p string) error {
			topSvc = n
			return d.serviceForm(n, p, dir, &top)
		}},
		{"priority", func(n *yaml.Node, p string) (err error) { topPri = n; top.Priority, err = d.priority(n, p); return }},
		{"trace", func(n *yaml.Node, p string) error {
			traceNode = n
			s, err := d.scalar(n, p, "a CSV file path")
			if err != nil {
				return err
			}
			w.Trace = resolvePath(dir, s)
			if _, _, err := workloads.CheckTrace(w.Trace); err != nil {
				if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
					return d.errAt(n, p, ie.Msg, "a CSV trace, relative to the scenario's folder")
				}
				return err
			}
			return nil
		}},
		{"accesslog", func(n *yaml.Node, p string) error {
			logNode = n
			a, err := d.accessLog(n, p, dir)
			w.AccessLog = a
			return err
		}},
		{"failure", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a probability between 0 and 1")
			if err == nil && (v < 0 || v > 1) {
				err = d.errAt(n, p, fmt.Sprintf("must be a probability, got %v", v), "0 <= failure <= 1")
			}
			w.Failure = v
			return err
		}},
		{"periodic", func(n *yaml.Node, p string) error { periodicNode = n; return d.periodic(n, p, dir, sc) }},
		{"users", func(n *yaml.Node, p string) (err error) { usersNode = n; sc.Users, err = d.users(n, p, dir); return }},
		{"client", func(n *yaml.Node, p string) (err error) { sc.Client, err = d.client(n, p, dir); return }},
	})
	if err != nil {
		return err
	}
	if usersNode != nil {
		return d.usersForm(n, path, sc, &top, topArr, topSvc, usersNode, phasesNode != nil || traceNode != nil || logNode != nil)
	}
	forms := 0
	for _, used := range []bool{phasesNode != nil, topArr != nil || topSvc != nil, traceNode != nil, logNode != nil} {
		if used {
			forms++
		}
	}
	switch {
	case forms == 0 && periodicNode != nil:
		sc.WorkloadForm = "periodic" // periodic jobs only
	case forms == 0:
		return d.errAt(n, path, "no traffic", "arrivals and service, phases, trace, accesslog, or periodic")
	case forms > 1:
		return d.errAt(n, path, "give only one of: phases; arrivals and service; trace; accesslog", "one form of workload")
	case (traceNode != nil || logNode != nil) && topPri != nil:
		return d.errAt(topPri, join(path, "priority"), "a trace carries its own priority column", "a priority column in the trace")
	case phasesNode != nil && topPri != nil:
		return d.errAt(topPri, join(path, "priority"), "with phases, give priority inside each phase", "phases[i].priority")
	case topArr != nil || topSvc != nil:
		if topArr == nil {
			return d.errAt(n, join(path, "arrivals"), "missing", "an arrival process, e.g. {process: poisson, rate: 100}")
		}
		if topSvc == nil {
			return d.errAt(n, join(path, "service"), "missing", "a service law, e.g. {dist: exponential, mean: 50ms}")
		}
		w.Phases = []workloads.Phase{top}
		sc.WorkloadForm = "single"
	case phasesNode != nil:
		sc.WorkloadForm = "phases"
	case traceNode != nil:
		sc.WorkloadForm = "trace"
	case logNode != nil:
		sc.WorkloadForm = "accesslog"
	}
	return nil
}

// usersForm checks a closed-loop workload: users and a service, nothing
// else that makes traffic.
func (d *decoder) usersForm(n *yaml.Node, path string, sc *Scenario, top *workloads.Phase, arr, svc, users *yaml.Node, other bool) error {
	switch {
	case arr != nil:
		return d.errAt(arr, join(path, "arrivals"), "closed-loop users make the arrivals: give users or arrivals, not both", "users: {count, think}, or arrivals")
	case other:
		return d.errAt(users, join(path, "users"), "closed-loop users take one service law (or steps) at the top of the workload, not phases, a trace or a log", "users and service")
	case svc == nil:
		return d.errAt(n, join(path, "service"), "missing", "the service of the users' requests")
	case top.Split != nil:
		return d.errAt(svc, join(path, "service"), "closed-loop users take a plain service law or steps, not a cpu/blocking split", "a law, or steps")
	}
	sc.Workload.Phases = []workloads.Phase{*top}
	sc.WorkloadForm = "users"
	return nil
}

// accessLog decodes workload.accesslog and reads the log once, so that a
// broken log is reported before the run.
func (d *decoder) accessLog(n *yaml.Node, path, dir string) (*workloads.AccessLogSpec, error) {
	a := &workloads.AccessLogSpec{}
	var fileNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"file", func(n *yaml.Node, p string) error {
			fileNode = n
			s, err := d.scalar(n, p, "the access log file")
			a.File = resolvePath(dir, s)
			return err
		}},
		{"pattern", func(n *yaml.Node, p string) (err error) {
			a.Pattern, err = d.scalar(n, p, `the AccessLogValve pattern, e.g. '%h %l %u %t "%r" %s %b %D', or common / combined`)
			return
		}},
		{"durationUnit", func(n *yaml.Node, p string) (err error) {
			a.DurationUnit, err = d.enum(n, p, []string{"us", "ms"})
			return
		}},
		{"maxBadFraction", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a fraction between 0 and 1")
			if err == nil && (v < 0 || v > 1) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 0..1, got %v", v), "a fraction of the lines")
			}
			a.MaxBadFraction = v
			return err
		}},
		{"timezone", func(n *yaml.Node, p string) (err error) {
			a.Location, err = d.scalar(n, p, "an IANA time zone")
			return
		}},
	})
	if err != nil {
		return nil, err
	}
	if fileNode == nil {
		return nil, d.errAt(n, join(path, "file"), "missing", "the access log file, relative to the scenario's folder")
	}
	if a.Pattern == "" {
		return nil, d.errAt(n, join(path, "pattern"), "missing", "the pattern the log was written with (server.xml's AccessLogValve pattern), or common / combined")
	}
	if _, _, err := accessLogEnd(*a); err != nil {
		var pe *workloads.ParamError
		if errors.As(err, &pe) {
			return nil, d.errAt(child(n, pe.Field), join(path, pe.Field), pe.Msg, pe.Allowed)
		}
		if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
			return nil, d.errAt(fileNode, join(path, "file"), ie.Msg, "an access log, relative to the scenario's folder")
		}
		return nil, err
	}
	return a, nil
}

// accessLogEnd is Extent of the access log a.
func accessLogEnd(a workloads.AccessLogSpec) (n int, lastEnd time.Duration, err error) {
	src, err := workloads.OpenAccessLog(a, 0, 0)
	if err != nil {
		return 0, 0, err
	}
	return workloads.Extent(src)
}

// resolvePath resolves p, a path written in the scenario, against the
// scenario's folder dir.
func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// phase decodes one item of workload.phases; only the last may leave its
// duration out, to run to the end.
func (d *decoder) phase(n *yaml.Node, path, dir string, last bool) (workloads.Phase, error) {
	var ph workloads.Phase
	var arr, svc *yaml.Node
	err := d.mapping(n, path, []field{
		{"duration", func(n *yaml.Node, p string) (err error) {
			ph.Duration, err = d.positiveDuration(n, p, "a positive duration; leave it out on the last phase to run to the end")
			return
		}},
		{"arrivals", func(n *yaml.Node, p string) (err error) { arr = n; ph.Arrivals, err = d.arrivals(n, p); return }},
		{"service", func(n *yaml.Node, p string) error {
			svc = n
			return d.serviceForm(n, p, dir, &ph)
		}},
		{"priority", func(n *yaml.Node, p string) (err error) { ph.Priority, err = d.priority(n, p); return }},
	})
	if err != nil {
		return ph, err
	}
	if arr == nil {
		return ph, d.errAt(n, join(path, "arrivals"), "missing", "an arrival process")
	}
	if svc == nil {
		return ph, d.errAt(n, join(path, "service"), "missing", "a service law")
	}
	if ph.Duration == 0 && !last {
		return ph, d.errAt(n, join(path, "duration"), "missing: only the last phase may run to the end", "a duration")
	}
	return ph, nil
}

// The keys each arrival process and service law takes, and which of them
// are required. A key that exists elsewhere but not for the chosen kind is
// an error, so "cv" on an exponential law is never silently ignored.
var (
	processKeys = map[string][2][]string{
		"poisson":  {{"process", "rate"}, {"rate"}},
		"constant": {{"process", "rate"}, {"rate"}},
		"onoff":    {{"process", "rate", "on", "off"}, {"rate", "on", "off"}},
		"burst":    {{"process", "count", "at", "every"}, {"count"}},
	}
	distKeys = map[string][2][]string{
		"constant":    {{"dist", "mean", "value"}, nil},
		"exponential": {{"dist", "mean"}, {"mean"}},
		"uniform":     {{"dist", "min", "max"}, {"min", "max"}},
		"lognormal":   {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"gamma":       {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"weibull":     {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"pareto":      {{"dist", "mean", "alpha"}, {"mean", "alpha"}},
		"empirical":   {{"dist", "file", "column"}, {"file"}},
		"quantiles":   {{"dist", "points"}, {"points"}},
	}
)

// checkKeys rejects keys that do not apply to the chosen kind and reports
// required ones that are missing.
func (d *decoder) checkKeys(n *yaml.Node, path, what, kind string, keys [2][]string) error {
	allowed, required := keys[0], keys[1]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
			}
		}
		if !ok {
			return d.errAt(n.Content[i], join(path, k), fmt.Sprintf("does not apply to the %s %s", what, kind), "keys: "+strings.Join(allowed, ", "))
		}
	}
	for _, r := range required {
		if !has(n, r) {
			return d.errAt(n, join(path, r), fmt.Sprintf("missing for the %s %s", what, kind), "keys: "+strings.Join(allowed, ", "))
		}
	}
	if what == "distribution" && kind == "constant" && !has(n, "mean") && !has(n, "value") {
		return d.errAt(n, join(path, "value"), "missing for the distribution constant", "value: 50ms (or mean)")
	}
	return nil
}

// arrivals decodes an arrival process and checks that its keys are the
// ones its process takes.
func (d *decoder) arrivals(n *yaml.Node, path string) (workloads.ArrivalSpec, error) {
	var a workloads.ArrivalSpec
	err := d.mapping(n, path, []field{
		{"process", func(n *yaml.Node, p string) (err error) {
			a.Process, err = d.enum(n, p, workloads.ProcessNames())
			return
		}},
		{"rate", func(n *yaml.Node, p string) (err error) { a.Rate, err = d.rate(n, p); return }},
		{"on", func(n *yaml.Node, p string) (err error) {
			a.On, err = d.positiveDuration(n, p, "a positive duration")
			return
		}},
		{"off", func(n *yaml.Node, p string) (err error) {
			a.Off, err = d.nonNegativeDuration(n, p, "a duration >= 0")
			return
		}},
		{"count", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "a number of tasks >= 0")
			if err == nil && (v < 0 || v > 1<<40) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 0..2^40, got %d", v), "a number of tasks")
			}
			a.Count = int(v)
			return err
		}},
		{"at", func(n *yaml.Node, p string) (err error) {
			a.At, err = d.nonNegativeDuration(n, p, "an offset from the phase start")
			return
		}},
		{"every", func(n *yaml.Node, p string) (err error) {
			a.Every, err = d.nonNegativeDuration(n, p, "a repeat period")
			return
		}},
	})
	if err != nil {
		return a, err
	}
	if n.Kind != yaml.MappingNode || !has(n, "process") {
		return a, d.errAt(n, join(path, "process"), "missing", "one of "+strings.Join(workloads.ProcessNames(), ", "))
	}
	return a, d.checkKeys(n, path, "arrival process", a.Process, processKeys[a.Process])
}

// service decodes a service law, reads an empirical law's samples, and
// checks the law's parameters so that an error points at this block.
func (d *decoder) service(n *yaml.Node, path, dir string) (workloads.ServiceSpec, error) {
	var s workloads.ServiceSpec
	var file, column string
	var fileNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"dist", func(n *yaml.Node, p string) (err error) { s.Dist, err = d.enum(n, p, workloads.DistNames()); return }},
		{"mean", func(n *yaml.Node, p string) (err error) { s.Mean, err = d.duration(n, p); return }},
		{"value", func(n *yaml.Node, p string) (err error) { s.Mean, err = d.duration(n, p); return }},
		{"cv", func(n *yaml.Node, p string) (err error) {
			s.CV, err = d.float(n, p, "a coefficient of variation > 0")
			return
		}},
		{"min", func(n *yaml.Node, p string) (err error) { s.Min, err = d.duration(n, p); return }},
		{"max", func(n *yaml.Node, p string) (err error) { s.Max, err = d.duration(n, p); return }},
		{"alpha", func(n *yaml.Node, p string) (err error) { s.Alpha, err = d.float(n, p, "a tail index > 1"); return }},
		{"file", func(n *yaml.Node, p string) (err error) {
			fileNode = n
			file, err = d.scalar(n, p, "a CSV file path")
			return
		}},
		{"column", func(n *yaml.Node, p string) (err error) { column, err = d.scalar(n, p, "a CSV column name"); return }},
		{"points", func(n *yaml.Node, p string) (err error) { s.Points, err = d.quantilePoints(n, p); return }},
	})
	if err != nil {
		return s, err
	}
	if n.Kind != yaml.MappingNode || !has(n, "dist") {
		return s, d.errAt(n, join(path, "dist"), "missing", "one of "+strings.Join(workloads.DistNames(), ", "))
	}
	if has(n, "mean") && has(n, "value") {
		return s, d.errAt(child(n, "value"), join(path, "value"), "give mean or value, not both", "value (or mean) for a constant")
	}
	if err := d.checkKeys(n, path, "distribution", s.Dist, distKeys[s.Dist]); err != nil {
		return s, err
	}
	if s.Dist == "empirical" {
		if column == "" {
			column = "service_s"
		}
		if s.Samples, err = readSamples(resolvePath(dir, file), column); err != nil {
			if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
				return s, d.errAt(fileNode, join(path, "file"), ie.Msg, "a CSV file, relative to the scenario's folder")
			}
			return s, err
		}
	}
	// Check the parameters now, so the error points at this block.
	if _, err := workloads.NewDistribution(s, workloads.NewStream(0, "check")); err != nil {
		var pe *workloads.ParamError
		if errors.As(err, &pe) {
			at := child(n, pe.Field)
			if at == nil {
				at = n
			}
			return s, d.errAt(at, join(path, pe.Field), pe.Msg, pe.Allowed)
		}
		return s, err
	}
	return s, nil
}

// quantilePoints decodes a quantiles law's points: a list of
// [quantile, duration] pairs.
func (d *decoder) quantilePoints(n *yaml.Node, path string) ([]workloads.QuantilePoint, error) {
	const allowed = "a list of [quantile, duration] pairs from [0, MIN] to [1, MAX], e.g. [[0, 5us], [0.5, 30us], [1, 3ms]]"
	items, err := d.sequence(n, path, allowed)
	if err != nil {
		return nil, err
	}
	var out []workloads.QuantilePoint
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		pair, err := d.sequence(it, p, allowed)
		if err != nil {
			return nil, err
		}
		if len(pair) != 2 {
			return nil, d.errAt(it, p, fmt.Sprintf("want [quantile, duration], got %d items", len(pair)), allowed)
		}
		q, err := d.float(pair[0], p+"[0]", "a quantile in [0, 1]")
		if err != nil {
			return nil, err
		}
		if !(q >= 0 && q <= 1) {
			return nil, d.errAt(pair[0], p+"[0]", fmt.Sprintf("must be in [0, 1], got %v", q), "a quantile")
		}
		v, err := d.nonNegativeDuration(pair[1], p+"[1]", "a duration >= 0")
		if err != nil {
			return nil, err
		}
		out = append(out, workloads.QuantilePoint{Q: q, Value: v})
	}
	return out, nil
}

// priority decodes a task priority range, min <= max.
func (d *decoder) priority(n *yaml.Node, path string) (workloads.PrioritySpec, error) {
	var p workloads.PrioritySpec
	err := d.mapping(n, path, []field{
		{"min", func(n *yaml.Node, q string) error {
			v, err := d.integer(n, q, "an integer")
			p.Min = int32(v)
			return err
		}},
		{"max", func(n *yaml.Node, q string) error {
			v, err := d.integer(n, q, "an integer")
			p.Max = int32(v)
			return err
		}},
	})
	if err == nil && p.Max < p.Min {
		err = d.errAt(n, join(path, "max"), fmt.Sprintf("%d is below min %d", p.Max, p.Min), "min <= max")
	}
	return p, err
}
