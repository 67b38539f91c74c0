package model

import (
	"fmt"
	"strings"
	"time"
)

// The scripted tests' commands for resources (testdata/r15*.txt):
//
//	hikari name=N max=N [minIdle=N] [timeout=D] [idleTimeout=D] [maxLifetime=D] [period=D] [version=6] [connect=D] [jitter=F]
//	    a HikariPool started now (NewHikariPool, after HikariConfig.Normalize);
//	    connect is every connection's connect time, jitter its maxLifetime draw
//	mxbean [idleTimeout=D] [maxLifetime=D]  HikariConfigMXBean's setters (SetIdleTimeout, SetMaxLifetime)
//	semaphore name=N permits=N [fair]
//	borrow b=N thread=N [timeout=D|forever]   Acquire (default timeout: the pool's own)
//	release b=N thread=N
//	threadEnded thread=N
//	advance D, dump                          as for pools: dump shows the resource

func (e *scriptEnv) resourceCommand(cmd string, args map[string]string) bool {
	switch cmd {
	case "hikari":
		e.now, e.pending, e.pool, e.res = 0, nil, nil, nil
		cfg := HikariDefaults
		cfg.MaximumPoolSize = e.atoi(args["max"])
		if v, ok := args["minIdle"]; ok {
			cfg.MinimumIdle = e.atoi(v)
		}
		durs := map[string]*time.Duration{"timeout": &cfg.ConnectionTimeout, "idleTimeout": &cfg.IdleTimeout,
			"maxLifetime": &cfg.MaxLifetime, "period": &cfg.HousekeepingPeriod, "connect": &e.connect}
		e.connect = 0
		for k, p := range durs {
			if v, ok := args[k]; ok {
				*p = e.dur(v)
			}
		}
		if args["version"] == "6" {
			cfg.Version = Hikari6
		}
		e.jitter = 0
		if v, ok := args["jitter"]; ok {
			fmt.Sscan(v, &e.jitter)
		}
		cfg, notes := cfg.Normalize()
		for _, n := range notes {
			e.logf("note: %s", n)
		}
		e.res = NewHikariPool(e.now, args["name"], cfg, e)
	case "mxbean":
		h := e.res.(*HikariPool)
		if v, ok := args["idleTimeout"]; ok {
			h.SetIdleTimeout(e.dur(v))
		}
		if v, ok := args["maxLifetime"]; ok {
			h.SetMaxLifetime(e.dur(v))
		}
	case "semaphore":
		e.now, e.pending, e.pool, e.res = 0, nil, nil, nil
		_, fair := args["fair"]
		e.res = NewSemaphore(args["name"], e.atoi(args["permits"]), fair, e)
	case "borrow":
		timeout := Forever
		if v, ok := args["timeout"]; ok && v != "forever" {
			timeout = e.dur(v)
		}
		e.res.Acquire(e.now, Borrower(e.atoi(args["b"])), Thread(e.atoi(args["thread"])), timeout)
	case "release":
		e.res.Release(e.now, Borrower(e.atoi(args["b"])), Thread(e.atoi(args["thread"])))
	case "threadEnded":
		e.res.ThreadEnded(Thread(e.atoi(args["thread"])))
	default:
		return false
	}
	if e.res != nil {
		e.res.CheckInvariants()
	}
	return true
}

// observeResource logs a resource's events and schedules its callbacks.
func (e *scriptEnv) observeResource(ev *Event) {
	r := ev.Res
	switch ev.Kind {
	case ResourceGranted:
		unit := ""
		if r.Unit > 0 {
			unit = fmt.Sprintf(" connection %d", r.Unit)
		}
		e.logf("borrower %d (thread %d) gets%s", r.Borrower, r.Thread, unit)
	case ResourceWaiting:
		if r.Deadline == Forever {
			e.logf("borrower %d (thread %d) waits", r.Borrower, r.Thread)
			return
		}
		e.logf("borrower %d (thread %d) waits until %v", r.Borrower, r.Thread, r.Deadline)
		e.seq++
		e.pending = append(e.pending, pendingEvent{at: r.Deadline, kind: 3, seq: e.seq, id: uint64(r.Borrower)})
	case ResourceTimedOut:
		e.logf("borrower %d (thread %d) times out", r.Borrower, r.Thread)
	case ResourceTimer:
		e.seq++
		e.pending = append(e.pending, pendingEvent{at: r.Deadline, kind: 2, seq: e.seq, id: r.Timer})
	case ConnectionCreating:
		r.Draw.Connect, r.Draw.Jitter = e.connect, e.jitter
		e.logf("opening a connection (%v)", e.connect)
	case ConnectionOpened:
		e.logf("connection %d opened", r.Unit)
	case ConnectionClosed:
		e.logf("connection %d closed", r.Unit)
	}
}

func (e *scriptEnv) dumpResource() string {
	var b strings.Builder
	s := e.res.Stats()
	fmt.Fprintf(&b, "%s: total %d, in use %d, idle %d, waiters %d, pending %d", e.res.Name(), s.Total, s.InUse, s.Idle, s.Waiters, s.Pending)
	if h, ok := e.res.(*HikariPool); ok {
		var conns []string
		for _, c := range h.all {
			state := "idle"
			if c.inUse {
				state = fmt.Sprintf("held by %d", c.holder)
			}
			if c.evicted {
				state += ", evicted"
			}
			conns = append(conns, fmt.Sprintf("#%d (%s, last used %v)", c.id, state, c.lastAccess))
		}
		fmt.Fprintf(&b, "\n  connections: %s", strings.Join(conns, ", "))
		var threads []string
		for th := Thread(0); th < 100; th++ {
			if l, ok := h.threads[th]; ok && len(l) > 0 {
				var ids []string
				for _, c := range l {
					ids = append(ids, fmt.Sprint(c.id))
				}
				threads = append(threads, fmt.Sprintf("%d: [%s]", th, strings.Join(ids, " ")))
			}
		}
		if len(threads) > 0 {
			fmt.Fprintf(&b, "\n  thread lists: %s", strings.Join(threads, ", "))
		}
	}
	return b.String()
}
