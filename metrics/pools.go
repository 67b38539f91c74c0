package metrics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Role is what a series says about its pool.
type Role string

// Roles of the known series.
const (
	Size      Role = "pool size"       // live workers (getPoolSize)
	Busy      Role = "busy"            // workers running a task (getActiveCount)
	Queue     Role = "queue"           // tasks in the queue
	Completed Role = "completed"       // cumulative completed tasks (a counter)
	Max       Role = "max"             // maximumPoolSize / maxThreads
	Core      Role = "core"            // corePoolSize / Jetty's min
	Remaining Role = "queue remaining" // the queue's remaining capacity
	Idle      Role = "idle"            // idle workers (Jetty)
)

// Families of pools.
const (
	Executor = "executor" // Micrometer ExecutorServiceMetrics (R171, R172)
	Tomcat   = "tomcat"   // Micrometer TomcatMetrics (R173)
	Jetty    = "jetty"    // Micrometer JettyServerThreadPoolMetrics (R175)
)

type known struct {
	family string
	role   Role
}

// knownSeries maps the exported names (R171, R173, R175) to their pool
// family and role. Counters are listed with and without _total: older
// clients and hand-made CSVs write both.
var knownSeries = map[string]known{
	"executor_pool_size_threads":        {Executor, Size},
	"executor_active_threads":           {Executor, Busy},
	"executor_queued_tasks":             {Executor, Queue},
	"executor_completed_tasks_total":    {Executor, Completed},
	"executor_completed_tasks":          {Executor, Completed},
	"executor_pool_max_threads":         {Executor, Max},
	"executor_pool_core_threads":        {Executor, Core},
	"executor_queue_remaining_tasks":    {Executor, Remaining},
	"tomcat_threads_current_threads":    {Tomcat, Size},
	"tomcat_threads_busy_threads":       {Tomcat, Busy},
	"tomcat_threads_config_max_threads": {Tomcat, Max},
	"jetty_threads_current":             {Jetty, Size},
	"jetty_threads_busy":                {Jetty, Busy},
	"jetty_threads_jobs":                {Jetty, Queue},
	"jetty_threads_idle":                {Jetty, Idle},
	"jetty_threads_config_max":          {Jetty, Max},
	"jetty_threads_config_min":          {Jetty, Core},
}

// SizeSeriesName is the pool-size series of each family.
var SizeSeriesName = map[string]string{Executor: "executor_pool_size_threads", Tomcat: "tomcat_threads_current_threads", Jetty: "jetty_threads_current"}

// JVMTimedWaiting is the JVM-wide count of TIMED_WAITING platform threads
// (R174): every pool's and service thread's, an upper bound on the timed
// idle workers of any one pool (R180).
const JVMTimedWaiting = "jvm_threads_states_threads"

// Pool is the series of one pool: a family and one label set.
type Pool struct {
	File   string
	Family string
	Labels map[string]string
	Series map[Role]*Series
	// TimedWaiting is jvm_threads_states_threads{state="timed-waiting"} of
	// the same JVM (its labels a subset of the pool's), or nil.
	TimedWaiting *Series
}

// ID names the pool: its family and labels, e.g.
// tomcat{application="shop",name="http-nio-8080"}.
func (p *Pool) ID() string { return p.Family + labelText(p.Labels, "") }

// Name is the pool's name label (the executor's bean name, the connector),
// else its ID.
func (p *Pool) Name() string {
	if n := p.Labels["name"]; n != "" {
		return n
	}
	return p.ID()
}

// Pools groups the known series of a set into pools, sorted by ID.
func Pools(set *Set) []*Pool {
	byID := map[string]*Pool{}
	var pools []*Pool
	for _, s := range set.Series {
		k, ok := knownSeries[s.Name]
		if !ok {
			continue
		}
		p := &Pool{File: set.File, Family: k.family, Labels: s.Labels, Series: map[Role]*Series{}}
		if old, ok := byID[p.ID()]; ok {
			p = old
		} else {
			byID[p.ID()] = p
			pools = append(pools, p)
		}
		p.Series[k.role] = s
	}
	for _, s := range set.Series {
		if s.Name != JVMTimedWaiting || s.Labels["state"] != "timed-waiting" {
			continue
		}
		for _, p := range pools {
			if subset(s.Labels, p.Labels, "state") {
				p.TimedWaiting = s
			}
		}
	}
	sort.Slice(pools, func(i, j int) bool { return pools[i].ID() < pools[j].ID() })
	return pools
}

// subset: every label of a but skip has the same value in b.
func subset(a, b map[string]string, skip string) bool {
	for k, v := range a {
		if k != skip && b[k] != v {
			return false
		}
	}
	return true
}

// Select picks the pool that want names: "" when the file holds one pool;
// else a value of any label (--pool http-nio-8080), the family
// (--pool tomcat), or label=value pairs separated by commas
// (--pool name=http-nio-8080,instance=web-1). No match, or more than one, is
// an input error listing the pools found.
func Select(set *Set, want string) (*Pool, error) {
	pools := Pools(set)
	if len(pools) == 0 {
		var names []string
		for _, s := range set.Series {
			names = append(names, s.Name)
		}
		return nil, inputerr.New(set.File, 0, 0, "", "no thread-pool series in the file (found "+summarise(unique(names), 6)+")",
			"executor_pool_size_threads, tomcat_threads_current_threads or jetty_threads_current and their siblings (spec §15)")
	}
	var match []*Pool
	for _, p := range pools {
		if want == "" || p.matches(want) {
			match = append(match, p)
		}
	}
	ids := func(ps []*Pool) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.ID())
		}
		return strings.Join(s, ", ")
	}
	switch {
	case len(match) == 0:
		return nil, inputerr.New(set.File, 0, 0, "--pool", fmt.Sprintf("no pool matches %q", want), "pools found: "+ids(pools))
	case len(match) > 1 && want == "":
		return nil, inputerr.New(set.File, 0, 0, "--pool", fmt.Sprintf("%d pools in the file; choose one", len(match)), "pools found: "+ids(match)+"; e.g. --pool "+hint(match[0]))
	case len(match) > 1:
		return nil, inputerr.New(set.File, 0, 0, "--pool", fmt.Sprintf("%q matches %d pools", want, len(match)), "pools found: "+ids(match)+"; add labels, e.g. --pool "+hint(match[0]))
	}
	p := match[0]
	if p.Series[Size] == nil {
		return nil, inputerr.New(set.File, 0, 0, p.ID(), "the pool has no pool-size series", SizeSeriesName[p.Family]+" (the size is what diagnose compares)")
	}
	return p, nil
}

func (p *Pool) matches(want string) bool {
	if !strings.Contains(want, "=") {
		if want == p.Family {
			return true
		}
		for _, v := range p.Labels {
			if v == want {
				return true
			}
		}
		return false
	}
	for _, kv := range strings.Split(want, ",") {
		k, v, _ := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)
		if k == "family" {
			if v != p.Family {
				return false
			}
			continue
		}
		if got, ok := p.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// hint is a --pool value that picks p: its labels as k=v pairs.
func hint(p *Pool) string {
	keys := make([]string, 0, len(p.Labels))
	for k := range p.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv []string
	for _, k := range keys {
		kv = append(kv, k+"="+p.Labels[k])
	}
	if len(kv) == 0 {
		return "family=" + p.Family
	}
	return strings.Join(kv, ",")
}

func unique(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func summarise(xs []string, n int) string {
	if len(xs) == 0 {
		return "nothing"
	}
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}
