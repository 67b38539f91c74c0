package threaddump

import (
	"fmt"
	"sort"
	"strings"
)

// Pool summarises the threads of a dump that share a name prefix.
type Pool struct {
	Prefix  string // see Classification.Pool
	Family  Family // the strongest family its threads' frames show (tomcat, jetty, scheduled, forkjoin, jdk), else unknown
	Threads int    // threads in the pool
	Daemon  int    // how many of them are daemon threads

	// States counts the threads by java.lang.Thread.State (StateUnknown
	// when neither printed nor inferable); StatesInferred says how many of
	// those states were inferred from frames.
	States         map[string]int
	StatesInferred int

	IdleTimed   int // RoleIdleTimed: in poll(keepAlive) and the like (TIMED_WAITING)
	IdleUntimed int // RoleIdleUntimed: in take() (WAITING)
	Busy        int // RoleBusy: running a task
	Other       int // RoleOther: named like the pool but no worker loop in the frames

	// ParkSites lists where the idle workers wait, most used first.
	ParkSites []ParkSite

	// MaxNumber is the highest number after the prefix: for the JDK and
	// Tomcat factories, the pool has created at least that many threads
	// (R62, R87); for Jetty it is a Java thread id. -1 when no name has one.
	MaxNumber int
}

// ParkSite counts the idle workers waiting at one queue call.
type ParkSite struct {
	Site    string    // "TaskQueue.poll", "LinkedBlockingQueue.take", ...
	Queue   QueueKind // the queue kind the site implies
	Timed   int       // RoleIdleTimed workers there
	Untimed int       // RoleIdleUntimed workers there
}

// familyRank orders families for a pool whose threads disagree: a Tomcat
// worker also shows JDK frames on old Tomcat, a scheduled pool is a JDK pool.
func familyRank(f Family) int {
	switch f {
	case FamilyJDK:
		return 1
	case FamilyForkJoin:
		return 2
	case FamilyScheduled:
		return 3
	case FamilyJetty:
		return 4
	case FamilyTomcat:
		return 5
	}
	return 0
}

// isJettyPrefix matches Jetty's default thread names "qtp<hashCode>-<id>"
// (R62); hashCode may be negative.
func isJettyPrefix(prefix string) bool {
	rest, ok := strings.CutPrefix(prefix, "qtp")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, "-")
	return ok && allDigits(strings.TrimPrefix(rest, "-"))
}

// Summarise groups the threads of d into pools by name prefix
// (Thread.Classify) and counts them by state, role and park site. Threads
// in no pool, and the thread a truncated dump ends in, are left out. Pools
// come largest first, then by prefix.
func Summarise(d *Dump) []Pool {
	if d == nil {
		return nil
	}
	byPrefix := map[string]*Pool{}
	var order []*Pool
	for i := range d.Threads {
		t := &d.Threads[i]
		if t.Incomplete {
			continue
		}
		c := t.Classify()
		if c.Pool == "" {
			continue
		}
		p := byPrefix[c.Pool]
		if p == nil {
			p = &Pool{Prefix: c.Pool, Family: FamilyUnknown, States: map[string]int{}, MaxNumber: -1}
			byPrefix[c.Pool] = p
			order = append(order, p)
		}
		p.add(t, c)
	}
	pools := make([]Pool, len(order))
	for i, p := range order {
		if p.Family == FamilyUnknown {
			switch {
			case isJettyPrefix(p.Prefix):
				p.Family = FamilyJetty
			case strings.HasPrefix(p.Prefix, "ForkJoinPool"):
				p.Family = FamilyForkJoin
			}
		}
		sort.Slice(p.ParkSites, func(a, b int) bool {
			na, nb := p.ParkSites[a].Timed+p.ParkSites[a].Untimed, p.ParkSites[b].Timed+p.ParkSites[b].Untimed
			if na != nb {
				return na > nb
			}
			return p.ParkSites[a].Site < p.ParkSites[b].Site
		})
		pools[i] = *p
	}
	sort.SliceStable(pools, func(a, b int) bool {
		if pools[a].Threads != pools[b].Threads {
			return pools[a].Threads > pools[b].Threads
		}
		return pools[a].Prefix < pools[b].Prefix
	})
	return pools
}

func (p *Pool) add(t *Thread, c Classification) {
	p.Threads++
	if t.Daemon {
		p.Daemon++
	}
	state := t.State
	if state == "" {
		state = StateUnknown
	}
	p.States[state]++
	if t.StateInferred {
		p.StatesInferred++
	}
	if familyRank(c.Family) > familyRank(p.Family) {
		p.Family = c.Family
	}
	if c.Number > p.MaxNumber {
		p.MaxNumber = c.Number
	}
	switch c.Role {
	case RoleBusy:
		p.Busy++
	case RoleOther:
		p.Other++
	case RoleIdleTimed, RoleIdleUntimed:
		if c.Role == RoleIdleTimed {
			p.IdleTimed++
		} else {
			p.IdleUntimed++
		}
		k := -1
		for i := range p.ParkSites {
			if p.ParkSites[i].Site == c.ParkSite {
				k = i
			}
		}
		if k < 0 {
			p.ParkSites = append(p.ParkSites, ParkSite{Site: c.ParkSite, Queue: c.Queue})
			k = len(p.ParkSites) - 1
		}
		if c.Role == RoleIdleTimed {
			p.ParkSites[k].Timed++
		} else {
			p.ParkSites[k].Untimed++
		}
	}
}

// StateCounts formats States as "RUNNABLE=1 WAITING=2", in a fixed order.
func (p Pool) StateCounts() string {
	var parts []string
	seen := map[string]bool{}
	for _, s := range [...]string{StateRunnable, StateBlocked, StateWaiting, StateTimedWaiting, StateNew, StateTerminated, StateUnknown} {
		seen[s] = true
		if n := p.States[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", s, n))
		}
	}
	var rest []string
	for s, n := range p.States {
		if !seen[s] && n > 0 {
			rest = append(rest, fmt.Sprintf("%s=%d", s, n))
		}
	}
	sort.Strings(rest)
	return strings.Join(append(parts, rest...), " ")
}

// Sites formats ParkSites as "TaskQueue.poll=6 (tomcat)".
func (p Pool) Sites() string {
	parts := make([]string, len(p.ParkSites))
	for i, s := range p.ParkSites {
		site := s.Site
		if site == "" {
			site = "?"
		}
		parts[i] = fmt.Sprintf("%s=%d (%s)", site, s.Timed+s.Untimed, s.Queue)
	}
	return strings.Join(parts, " ")
}

// String is a one-line summary of the pool.
func (p Pool) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d threads: %d busy, %d idle timed, %d idle untimed, %d other; %s",
		p.Prefix, p.Family, p.Threads, p.Busy, p.IdleTimed, p.IdleUntimed, p.Other, p.StateCounts())
	if len(p.ParkSites) > 0 {
		b.WriteString("; parked at " + p.Sites())
	}
	if p.MaxNumber >= 0 {
		fmt.Fprintf(&b, "; highest number %d", p.MaxNumber)
	}
	return b.String()
}
