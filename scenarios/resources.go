package scenarios

import (
	"fmt"
	"slices"
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
}

// ResourceTypes lists the resource types by scenario name.
func ResourceTypes() []string { return []string{"hikari", "semaphore", "bulkhead"} }

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
		return r, d.errAt(n, join(path, "type"), "missing", "one of hikari, semaphore, bulkhead")
	}
	var err error
	if r.Type, err = d.enum(typ, join(path, "type"), ResourceTypes()); err != nil {
		return r, err
	}
	typeField := field{"type", func(*yaml.Node, string) error { return nil }}
	switch r.Type {
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
			{"hold", func(n *yaml.Node, p string) (err error) {
				st.Kind = workloads.Hold
				if st.Resource, err = d.scalar(n, p, "the name of a resource in resources:"); err != nil {
					return err
				}
				if !slices.Contains(d.resourceNames, st.Resource) {
					allowed := "define it in resources:, e.g. resources: {db: {type: hikari}}"
					if len(d.resourceNames) > 0 {
						allowed = "one of " + strings.Join(d.resourceNames, ", ")
					}
					return d.errAt(n, p, fmt.Sprintf("no resource named %q", st.Resource), allowed)
				}
				return nil
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
		case has(it, "compute") == has(it, "hold"):
			return nil, d.errAt(it, p, "a step computes or holds a resource", "{compute: LAW} or {hold: RESOURCE, for: LAW}")
		case st.Kind == workloads.Hold && forNode == nil:
			return nil, d.errAt(it, join(p, "for"), "missing", "how long the resource is held, e.g. for: {dist: lognormal, mean: 40ms, cv: 1}")
		case st.Kind == workloads.Compute && (forNode != nil || has(it, "timeout")):
			return nil, d.errAt(it, p, "for and timeout belong to a hold step", "{compute: LAW}")
		}
		out = append(out, st)
	}
	return out, nil
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
	case sc.Host.CPUs > 0 || sc.Host.ThreadStart > 0:
		return d.errAt(child(root, "host"), "host", "a host model together with service steps is not modelled yet",
			"leave host out, or give plain service laws")
	case sc.Pool.Rejection == model.CallerRunsPolicy:
		return d.errAt(child(root, "pool"), "pool.rejection", "CallerRunsPolicy with service steps is not modelled yet (the caller's thread would hold the resources)",
			"abort, discard or discard-oldest")
	}
	return nil
}
