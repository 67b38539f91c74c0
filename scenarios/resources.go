package scenarios

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// Resource is something tasks hold for part of their service (resources:):
// a HikariCP connection pool or a semaphore bulkhead (spec §14). Tasks use
// it through Hold steps (workload service: {steps: [...]}).
type Resource struct {
	Name string
	// Type is hikari (HikariCP), semaphore (java.util.concurrent.Semaphore)
	// or bulkhead (resilience4j's SemaphoreBulkhead).
	Type string
	Line int // where it was written

	// Hikari is a hikari resource's configuration, after HikariCP's own
	// validateNumerics (R150); Notes say what that changed. Connect is how
	// long the database takes to open a connection.
	Hikari  model.HikariConfig
	Connect workloads.ServiceSpec
	Notes   []string

	// A semaphore's or bulkhead's permits and fairness, and how long a
	// caller waits for a permit: model.Forever for acquire(), else
	// tryAcquire(MaxWait).
	Permits int
	Fair    bool
	MaxWait time.Duration

	// Pool is an executor resource's pool (an @Async executor, a
	// resilience4j ThreadPoolBulkhead): tasks call it with sub-tasks and
	// wait for their results.
	Pool Pool
}

// ResourceTypes lists the resource types by scenario name.
func ResourceTypes() []string { return []string{"hikari", "semaphore", "bulkhead", "executor"} }

// resources decodes the resources block: a mapping from each resource's
// name to its definition.
func (d *decoder) resources(n *yaml.Node, path string, sc *Scenario) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, fmt.Sprintf("must be a mapping of names to resources, got %s", describeNode(n)),
			"e.g. resources: {db: {type: hikari, maximumPoolSize: 10}}")
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		name := k.Value
		p := join(path, name)
		if k.Kind != yaml.ScalarNode || name == "" {
			return d.errAt(k, path, "resource names must be plain names", "e.g. db, bulkhead")
		}
		if first, dup := seen[name]; dup {
			return d.errAt(k, p, fmt.Sprintf("defined twice (first at line %d)", first), "one definition per name")
		}
		seen[name] = k.Line
		d.resourceNames = append(d.resourceNames, name)
		r, err := d.resource(v, p, name)
		if err != nil {
			return err
		}
		if d.resourceTypes == nil {
			d.resourceTypes = map[string]string{}
		}
		d.resourceTypes[name] = r.Type
		r.Line = k.Line
		sc.Resources = append(sc.Resources, r)
	}
	return nil
}

// resource decodes one resource. Its type decides which keys it takes.
func (d *decoder) resource(n *yaml.Node, path, name string) (Resource, error) {
	r := Resource{Name: name}
	typ := child(n, "type")
	if n.Kind != yaml.MappingNode || typ == nil {
		return r, d.errAt(n, join(path, "type"), "missing", "one of hikari, semaphore, bulkhead, executor")
	}
	var err error
	if r.Type, err = d.enum(typ, join(path, "type"), ResourceTypes()); err != nil {
		return r, err
	}
	typeField := field{"type", func(*yaml.Node, string) error { return nil }}
	switch r.Type {
	case "executor":
		return r, d.executorResource(n, path, &r, typeField)
	case "hikari":
		return r, d.hikari(n, path, &r, typeField)
	case "semaphore":
		r.MaxWait = model.Forever
		return r, d.mapping(n, path, []field{typeField,
			{"permits", func(n *yaml.Node, p string) (err error) { r.Permits, err = d.permits(n, p); return }},
			{"fair", func(n *yaml.Node, p string) (err error) { r.Fair, err = d.boolean(n, p); return }},
			{"maxWait", func(n *yaml.Node, p string) (err error) { r.MaxWait, err = d.maxWait(n, p); return }},
		})
	}
	// resilience4j's SemaphoreBulkhead: Semaphore(maxConcurrentCalls,
	// fairCallHandlingEnabled), tryAcquire(maxWaitDuration); defaults 25,
	// fair, 0 (R162).
	r.Permits, r.Fair, r.MaxWait = 25, true, 0
	return r, d.mapping(n, path, []field{typeField,
		{"maxConcurrentCalls", func(n *yaml.Node, p string) (err error) { r.Permits, err = d.permits(n, p); return }},
		{"maxWaitDuration", func(n *yaml.Node, p string) (err error) {
			r.MaxWait, err = d.nonNegativeDuration(n, p, "a duration >= 0 (0: fail at once when all calls are taken)")
			return
		}},
		{"fairCallHandlingEnabled", func(n *yaml.Node, p string) (err error) { r.Fair, err = d.boolean(n, p); return }},
	})
}

// executorResource decodes an executor that tasks call: its pool block,
// with every preset and key of the scenario's own pool.
func (d *decoder) executorResource(n *yaml.Node, path string, r *Resource, typeField field) error {
	var pn poolNodes
	var scratch Scenario
	var poolNode *yaml.Node
	err := d.mapping(n, path, []field{typeField,
		{"pool", func(n *yaml.Node, p string) error { poolNode = n; return d.pool(n, p, &scratch, &pn) }},
	})
	if err != nil {
		return err
	}
	if poolNode == nil {
		return d.errAt(n, join(path, "pool"), "missing", "the executor's pool, e.g. pool: {core: 8, max: 8, queue: {type: linked, capacity: 100}}")
	}
	if err := d.finishPool(&scratch, &pn); err != nil {
		return err
	}
	if scratch.Pool.Config.Flavor == model.Scheduled {
		return d.errAt(poolNode, join(path, "pool.preset"), "a ScheduledThreadPoolExecutor as a called executor is not modelled", "a ThreadPoolExecutor, Tomcat or Jetty preset")
	}
	r.Pool = scratch.Pool
	return nil
}

// hikari decodes a HikariCP pool: HikariConfig's keys, the database's
// connect time, and the version whose rules apply.
func (d *decoder) hikari(n *yaml.Node, path string, r *Resource, typeField field) error {
	c := model.HikariDefaults
	r.Connect = workloads.ServiceSpec{Dist: "constant"}
	dur := func(dst *time.Duration) func(*yaml.Node, string) error {
		return func(n *yaml.Node, p string) (err error) {
			*dst, err = d.nonNegativeDuration(n, p, "a duration >= 0")
			return
		}
	}
	err := d.mapping(n, path, []field{typeField,
		{"maximumPoolSize", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "an integer")
			c.MaximumPoolSize = int(v)
			return err
		}},
		{"minimumIdle", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "an integer (unset: maximumPoolSize)")
			c.MinimumIdle = int(v)
			return err
		}},
		{"connectionTimeout", dur(&c.ConnectionTimeout)},
		{"idleTimeout", dur(&c.IdleTimeout)},
		{"maxLifetime", dur(&c.MaxLifetime)},
		{"housekeepingPeriod", func(n *yaml.Node, p string) (err error) {
			c.HousekeepingPeriod, err = d.positiveDuration(n, p, "a positive duration (com.zaxxer.hikari.housekeeping.periodMs)")
			return
		}},
		{"connect", func(n *yaml.Node, p string) (err error) { r.Connect, err = d.service(n, p, ""); return }},
		{"version", func(n *yaml.Node, p string) error {
			v, err := d.enum(n, p, []string{"2.7.9", "6"})
			if v == "6" {
				c.Version = model.Hikari6
			}
			return err
		}},
	})
	if err != nil {
		return err
	}
	r.Hikari, r.Notes = c.Normalize()
	return nil
}

func (d *decoder) permits(n *yaml.Node, path string) (int, error) {
	v, err := d.integer(n, path, "an integer >= 1")
	if err == nil && (v < 1 || v > model.Unbounded) {
		err = d.errAt(n, path, fmt.Sprintf("must be in 1..%d, got %d", model.Unbounded, v), "the number of permits")
	}
	return int(v), err
}

// maxWait decodes a semaphore's wait: a duration (tryAcquire(t)) or
// forever (acquire()).
func (d *decoder) maxWait(n *yaml.Node, path string) (time.Duration, error) {
	if n.Kind == yaml.ScalarNode && n.Value == "forever" {
		return model.Forever, nil
	}
	return d.nonNegativeDuration(n, path, "a duration >= 0 (tryAcquire(t)), or forever (acquire())")
}

// steps decodes a service given as steps: each {compute: LAW} or
// {hold: RESOURCE, for: LAW, timeout: LAW}.
func (d *decoder) steps(n *yaml.Node, path, dir string) ([]workloads.Step, error) {
	items, err := d.sequence(n, path, "a list of steps: {compute: LAW} or {hold: RESOURCE, for: LAW}")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, d.errAt(n, path, "empty list", "at least one step")
	}
	var out []workloads.Step
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		var st workloads.Step
		var forNode *yaml.Node
		err := d.mapping(it, p, []field{
			{"compute", func(n *yaml.Node, p string) (err error) { st.Time, err = d.service(n, p, dir); return }},
			{"block", func(n *yaml.Node, p string) (err error) {
				st.Kind = workloads.Block
				st.Time, err = d.service(n, p, dir)
				return
			}},
			{"in", func(n *yaml.Node, p string) error {
				s, err := d.enum(n, p, model.SiteNames())
				site, _ := model.ParseSite(s)
				st.In = uint8(site)
				return err
			}},
			{"hold", func(n *yaml.Node, p string) (err error) {
				st.Kind = workloads.Hold
				st.Resource, err = d.stepResource(n, p, false)
				return err
			}},
			{"call", func(n *yaml.Node, p string) (err error) {
				st.Kind = workloads.Call
				st.Resource, err = d.stepResource(n, p, true)
				return err
			}},
			{"for", func(n *yaml.Node, p string) (err error) { forNode = n; st.Time, err = d.service(n, p, dir); return }},
			{"timeout", func(n *yaml.Node, p string) error {
				t, err := d.patience(n, p, dir)
				st.Timeout = &t
				return err
			}},
		})
		if err != nil {
			return nil, err
		}
		switch {
		case btoi(has(it, "compute"))+btoi(has(it, "hold"))+btoi(has(it, "call"))+btoi(has(it, "block")) != 1:
			return nil, d.errAt(it, p, "a step computes, blocks, holds a resource or calls an executor", "{compute: LAW}, {block: LAW}, {hold: RESOURCE, for: LAW} or {call: EXECUTOR, for: LAW}")
		case has(it, "in") && st.Kind != workloads.Block && st.Kind != workloads.Hold:
			return nil, d.errAt(child(it, "in"), join(p, "in"), "in: says where a blocking call happens: it belongs to a block or hold step", "{block: LAW, in: synchronized} or {hold: RESOURCE, for: LAW, in: synchronized}")
		case st.Kind == workloads.Block && (forNode != nil || has(it, "timeout")):
			return nil, d.errAt(it, p, "for and timeout belong to a hold step", "{block: LAW}")
		case st.Kind == workloads.Hold && forNode == nil:
			return nil, d.errAt(it, join(p, "for"), "missing", "how long the resource is held, e.g. for: {dist: lognormal, mean: 40ms, cv: 1}")
		case st.Kind == workloads.Call && forNode == nil:
			return nil, d.errAt(it, join(p, "for"), "missing", "the service time of the sub-task, e.g. for: {dist: exponential, mean: 30ms}")
		case st.Kind == workloads.Compute && (forNode != nil || has(it, "timeout")):
			return nil, d.errAt(it, p, "for and timeout belong to a hold step", "{compute: LAW}")
		}
		out = append(out, st)
	}
	return out, nil
}

// stepResource decodes the resource a hold or call step names: a call
// names an executor, a hold any other resource.
func (d *decoder) stepResource(n *yaml.Node, p string, call bool) (string, error) {
	name, err := d.scalar(n, p, "the name of a resource in resources:")
	if err != nil {
		return "", err
	}
	typ, ok := d.resourceTypes[name]
	switch {
	case !ok:
		allowed := "define it in resources:, e.g. resources: {db: {type: hikari}}"
		if len(d.resourceNames) > 0 {
			allowed = "one of " + strings.Join(d.resourceNames, ", ")
		}
		return "", d.errAt(n, p, fmt.Sprintf("no resource named %q", name), allowed)
	case call && typ != "executor":
		return "", d.errAt(n, p, fmt.Sprintf("%s is a %s, not an executor: a task holds it", name, typ), "hold: "+name+", or call an executor resource")
	case !call && typ == "executor":
		return "", d.errAt(n, p, fmt.Sprintf("%s is an executor: a task calls it with a sub-task", name), "call: "+name)
	}
	return name, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkResources refuses what poolsim does not model together with service
// steps.
func (d *decoder) checkResources(root *yaml.Node, sc *Scenario) error {
	stepped := false
	for _, ph := range sc.Workload.Phases {
		stepped = stepped || ph.Steps != nil
	}
	switch {
	case !stepped:
		return nil
	case sc.Pool.Flavor == model.Virtual:
		return nil // host.cpus only sizes the carriers (finishJVM)
	case sc.Host.CPUs > 0 || sc.Host.ThreadStart > 0:
		return d.errAt(child(root, "host"), "host", "a host model together with service steps is not modelled yet",
			"leave host out, or give plain service laws")
	case sc.Pool.Rejection == model.CallerRunsPolicy:
		return d.errAt(child(root, "pool"), "pool.rejection", "CallerRunsPolicy with service steps is not modelled yet (the caller's thread would hold the resources)",
			"abort, discard or discard-oldest")
	}
	return nil
}
