package scenarios

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// Client is how the callers behave (workload.client): a caller that gives
// up after a timeout (its request still runs, or waits in the queue and
// runs later: wasted work), and retries — after a timeout, a rejection or
// an error — with an exponential back-off, within a retry budget.
type Client struct {
	// Timeout is the caller's patience per attempt (nil: it waits for the
	// answer however long it takes).
	Timeout *workloads.ServiceSpec
	// Retries is how many more attempts a request may make; Backoff the
	// wait before the first retry, multiplied by BackoffMultiplier before
	// each next one.
	Retries           int
	Backoff           time.Duration
	BackoffMultiplier float64
	// RetryBudget caps the retries at this share of the first attempts
	// made so far (0: no cap).
	RetryBudget float64
	// RetryOn says what a caller retries: a timeout, a rejection
	// (RejectedExecutionException, a discarded task), an error (a failed
	// resource acquisition).
	RetryOn map[string]bool
}

// Users are closed-loop callers (workload.users): Count callers, each
// sending a request, waiting for its answer (or giving up), then thinking
// for a time drawn from Think before the next.
type Users struct {
	Count int
	Think workloads.ServiceSpec
}

// RetryReasons lists what a client may retry on.
func RetryReasons() []string { return []string{"timeout", "rejected", "error"} }

// client decodes workload.client.
func (d *decoder) client(n *yaml.Node, path, dir string) (*Client, error) {
	c := &Client{BackoffMultiplier: 2, RetryOn: map[string]bool{"timeout": true, "rejected": true, "error": true}}
	err := d.mapping(n, path, []field{
		{"timeout", func(n *yaml.Node, p string) error {
			t, err := d.patience(n, p, dir)
			c.Timeout = &t
			return err
		}},
		{"retries", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "an integer >= 0")
			if err == nil && (v < 0 || v > 100) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 0..100, got %d", v), "how many more attempts a request may make")
			}
			c.Retries = int(v)
			return err
		}},
		{"backoff", func(n *yaml.Node, p string) (err error) {
			c.Backoff, err = d.nonNegativeDuration(n, p, "a duration >= 0 before the first retry")
			return
		}},
		{"backoffMultiplier", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a number >= 1")
			if err == nil && !(v >= 1 && v <= 100) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 1..100, got %v", v), "the factor between two back-offs")
			}
			c.BackoffMultiplier = v
			return err
		}},
		{"retryBudget", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a share of the first attempts, 0 < budget <= 10")
			if err == nil && !(v > 0 && v <= 10) {
				err = d.errAt(n, p, fmt.Sprintf("must be in (0, 10], got %v", v), "retries at most this share of first attempts, e.g. 0.2")
			}
			c.RetryBudget = v
			return err
		}},
		{"retryOn", func(n *yaml.Node, p string) error {
			items, err := d.sequence(n, p, "a list of: timeout, rejected, error")
			if err != nil {
				return err
			}
			c.RetryOn = map[string]bool{}
			for i, it := range items {
				v, err := d.enum(it, fmt.Sprintf("%s[%d]", p, i), RetryReasons())
				if err != nil {
					return err
				}
				c.RetryOn[v] = true
			}
			return nil
		}},
	})
	return c, err
}

// patience decodes how long a caller or a step waits: a duration, or a
// law (drawn per attempt).
func (d *decoder) patience(n *yaml.Node, path, dir string) (workloads.ServiceSpec, error) {
	if n.Kind == yaml.ScalarNode {
		t, err := d.positiveDuration(n, path, "a duration, or a law such as {dist: exponential, mean: 2s}")
		return workloads.ServiceSpec{Dist: "constant", Mean: t}, err
	}
	return d.service(n, path, dir)
}

// users decodes workload.users.
func (d *decoder) users(n *yaml.Node, path, dir string) (*Users, error) {
	u := &Users{}
	err := d.mapping(n, path, []field{
		{"count", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "an integer >= 1")
			if err == nil && (v < 1 || v > 1_000_000) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 1..1000000, got %d", v), "the number of callers")
			}
			u.Count = int(v)
			return err
		}},
		{"think", func(n *yaml.Node, p string) (err error) { u.Think, err = d.service(n, p, dir); return }},
	})
	if err == nil && u.Count == 0 {
		err = d.errAt(n, join(path, "count"), "missing", "how many callers, e.g. count: 50")
	}
	if err == nil && u.Think.Dist == "" {
		err = d.errAt(n, join(path, "think"), "missing", "each caller's pause between an answer and its next request, e.g. think: {dist: exponential, mean: 1s}")
	}
	return u, err
}

// checkClient refuses what poolsim does not model together with callers
// that time out, retry or loop.
func (d *decoder) checkClient(root *yaml.Node, sc *Scenario) error {
	if (sc.Client != nil || sc.Users != nil) && sc.Pool.Rejection == model.CallerRunsPolicy {
		return d.errAt(child(root, "pool"), "pool.rejection", "CallerRunsPolicy with workload.client or users is not modelled (the caller would run its own request)",
			"abort, discard or discard-oldest")
	}
	if (sc.Client != nil || sc.Users != nil) && sc.Pool.Throttle && !sc.Pool.RejectWhenLimited && sc.Pool.ConcurrencyLimit > 0 {
		return d.errAt(child(child(root, "pool"), "concurrencyLimit"), "pool.concurrencyLimit", "a caller waiting for a permit with workload.client or users is not modelled (each request would be its own waiting caller)",
			"rejectTasksWhenLimitReached: true, or leave client and users out")
	}
	return nil
}
