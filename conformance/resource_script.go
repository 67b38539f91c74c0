package conformance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ResourceKind names a real resource the harness can run: something threads borrow, hold and
// give back (spec §14).
type ResourceKind string

// The resources the harness can run.
const (
	// ResourceHikari is HikariCP 2.7.9's HikariDataSource (Debian's libhikaricp-java, spec
	// §14.1) over the harness's test DataSource.
	ResourceHikari ResourceKind = "hikari"
	// ResourceSemaphore is java.util.concurrent.Semaphore(permits, fair) (spec §14.2).
	ResourceSemaphore ResourceKind = "semaphore"
)

// Unset leaves HikariConfig's setMaximumPoolSize or setMinimumIdle uncalled: −1 is
// HikariConfig's own value for "not set", which validateNumerics replaces (R150).
const Unset = -1

// Resource is the resource directive: which resource and how it is built. For HikariCP every
// number is written to the script and passed to its HikariConfig setter before new
// HikariDataSource(config), except the two that may be Unset; validateNumerics then applies
// R150. For a Semaphore only Permits and Fair count.
type Resource struct {
	Kind ResourceKind

	MaximumPoolSize int // Unset, or >= 1
	MinimumIdle     int // Unset, or >= 0
	// ConnectionTimeoutMs is 0 (setConnectionTimeout makes it Integer.MAX_VALUE) or >= 250.
	ConnectionTimeoutMs int64
	IdleTimeoutMs       int64
	MaxLifetimeMs       int64
	// HousekeepingMs is the house-keeper's period, the system property
	// com.zaxxer.hikari.housekeeping.periodMs (R155; HikariCP's default is 30000).
	HousekeepingMs int64
	// ConnectMs is how long the test database takes to open a connection (R157's C).
	ConnectMs int64

	Permits int
	Fair    bool
}

// Borrow is one borrow directive: when its time comes and the thread's previous borrow is
// over, thread Thread calls getConnection() (HikariCP, which waits up to its
// connectionTimeout, R151) or, for a Semaphore, acquire() — or tryAcquire(TimeoutMs) when
// Timed — holds what it got HoldMs, then gives it back (for HikariCP after running one
// statement, see ResourceScript).
type Borrow struct {
	AtMs   int64
	ID     int    // unique, >= 1
	Thread string // a name of letters, digits, '_' and '-'
	HoldMs int64
	// Timed and TimeoutMs: tryAcquire(TimeoutMs, MILLISECONDS) instead of acquire()
	// (Semaphore only).
	Timed     bool
	TimeoutMs int64
}

// SetIdleTimeoutMs is HikariConfigMXBean.setIdleTimeout(ms): a runtime change, which
// validateNumerics never sees, read by the house-keeper at its next run (R155).
func SetIdleTimeoutMs(ms int64) Change {
	return Change{Key: "idleTimeoutMs", Value: strconv.FormatInt(ms, 10)}
}

// SetMaxLifetimeMs is HikariConfigMXBean.setMaxLifetime(ms): it applies to the connections
// opened afterwards (createPoolEntry reads it, R156), unvalidated.
func SetMaxLifetimeMs(ms int64) Change {
	return Change{Key: "maxLifetimeMs", Value: strconv.FormatInt(ms, 10)}
}

// ResourceScript is one scripted run of a real resource, in milliseconds from t=0, rendered by
// String in the harness's text format (the package doc's resource and borrow directives).
//
// For HikariCP, t=0 is the end of new HikariDataSource(config), when it schedules its
// house-keeper, which runs 100 ms later, then every HousekeepingMs (R155); the constructor has
// opened the first connection before (and closed it again when minimumIdle is 0, R157). A borrower runs one statement at the
// end of its hold, as an application's last query does, so that the connection's last access
// — the house-keeper's idle clock — is the release: ProxyConnection.lastAccess is set at the
// borrow and by statements, commit and rollback, but not by close.
type ResourceScript struct {
	Resource Resource
	Borrows  []Borrow
	// Sets are HikariConfigMXBean calls (SetIdleTimeoutMs, SetMaxLifetimeMs) made by the
	// harness's controller thread; at one instant they come before the borrows.
	Sets    []Set
	Samples Samples
	// EndMs stops the run: the last samples are taken, the borrower threads are interrupted,
	// and the harness prints what happened by then.
	EndMs int64
}

// String renders the script in the harness's text format, one directive per line.
func (s ResourceScript) String() string {
	var b strings.Builder
	r := s.Resource
	switch r.Kind {
	case ResourceSemaphore:
		fmt.Fprintf(&b, "resource kind=%s permits=%d fair=%t\n", r.Kind, r.Permits, r.Fair)
	default:
		fmt.Fprintf(&b, "resource kind=%s maximumPoolSize=%d minimumIdle=%d connectionTimeoutMs=%d idleTimeoutMs=%d maxLifetimeMs=%d housekeepingMs=%d connectMs=%d\n",
			r.Kind, r.MaximumPoolSize, r.MinimumIdle, r.ConnectionTimeoutMs, r.IdleTimeoutMs, r.MaxLifetimeMs, r.HousekeepingMs, r.ConnectMs)
	}
	var lines []timedLine
	for _, e := range s.Sets {
		lines = append(lines, timedLine{e.AtMs, e.String()})
	}
	for _, u := range s.Borrows {
		t := fmt.Sprintf("borrow at=%d id=%d thread=%s holdMs=%d", u.AtMs, u.ID, u.Thread, u.HoldMs)
		if u.Timed {
			t += fmt.Sprintf(" timeoutMs=%d", u.TimeoutMs)
		}
		lines = append(lines, timedLine{u.AtMs, t})
	}
	writeTimed(&b, lines, s.Samples, s.EndMs)
	return b.String()
}

// SampleTimes returns the instants, in milliseconds, at which the harness samples the
// resource, as Script.SampleTimes does for a pool.
func (s ResourceScript) SampleTimes() []int64 {
	return Script{Samples: s.Samples}.SampleTimes()
}

// threads returns the borrower threads in order of first appearance.
func (s ResourceScript) threads() []string {
	var out []string
	for _, u := range s.Borrows {
		if !slices.Contains(out, u.Thread) {
			out = append(out, u.Thread)
		}
	}
	return out
}

// RunResource runs a resource script once on the real class; see Run.
func RunResource(ctx context.Context, s ResourceScript) (*Result, error) {
	return Runner{}.RunResource(ctx, s)
}

// RunResource is the package-level RunResource on this runner's JVM.
func (r Runner) RunResource(ctx context.Context, s ResourceScript) (*Result, error) {
	return r.runText(ctx, s.String(), time.Duration(s.EndMs)*time.Millisecond)
}
