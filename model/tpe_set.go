package model

import (
	"fmt"
	"time"
)

// This file is ThreadPoolExecutor's reconfiguration at run time (spec §1.6,
// R21–R24) and Apply, the one entry point through which a runtime change
// reaches the model.

// Apply makes the calls of one runtime change in the order that lets a
// consistent change through, as a caller must: the JDK refuses a core
// above max and a max below core at each call (R21, R22), so max is raised
// before core is set and lowered after; allowCoreThreadTimeOut(false)
// comes before setKeepAliveTime so that keepAlive may drop to 0 (R23,
// R24), allowCoreThreadTimeOut(true) after it; shutdown() or shutdownNow()
// comes last. It returns the first call's *ConfigError; the calls before
// it have been made.
func (p *ThreadPoolExecutor) Apply(now time.Duration, c Change) error {
	if p.setterBan != nil && c.HasSetters() {
		return p.banned(firstSetter(c))
	}
	if err := p.applySizes(now, c, p.SetMaximumPoolSize, p.SetCorePoolSize); err != nil {
		return err
	}
	if c.KeepAlive != nil {
		if c.CoreTimeOut != nil && !*c.CoreTimeOut {
			if err := p.AllowCoreThreadTimeOut(now, false); err != nil {
				return err
			}
		}
		if err := p.SetKeepAliveTime(now, *c.KeepAlive); err != nil {
			return err
		}
	}
	if c.CoreTimeOut != nil {
		if err := p.AllowCoreThreadTimeOut(now, *c.CoreTimeOut); err != nil {
			return err
		}
	}
	switch c.Shutdown {
	case Graceful:
		p.Shutdown(now)
	case Immediate:
		p.ShutdownNow(now)
	}
	p.now = now
	p.emit(Event{Kind: Reconfigured, Change: &c})
	return nil
}

// firstSetter names the first setter a change calls, in the order core,
// max, keepAlive, allowCoreThreadTimeOut.
func firstSetter(c Change) string {
	switch {
	case c.Core != nil:
		return "core"
	case c.Max != nil:
		return "max"
	case c.KeepAlive != nil:
		return "keepAlive"
	}
	return "allowCoreThreadTimeOut"
}

// banned is the error of a setter this executor does not have.
func (p *ThreadPoolExecutor) banned(field string) error {
	e := *p.setterBan
	e.Field = field
	return &e
}

// SetCorePoolSize is setCorePoolSize(n) (R21): idle workers above the new
// core are interrupted (and time out if timed); a raise starts up to
// min(delta, queued) new workers for the queued tasks.
func (p *ThreadPoolExecutor) SetCorePoolSize(now time.Duration, n int) error {
	if p.setterBan != nil {
		return p.banned("core")
	}
	if n < 0 || p.cfg.Max < n {
		return &ConfigError{"core", fmt.Sprintf("must be in 0..max (%s), got %d", SizeString(p.cfg.Max), n), "R21: setCorePoolSize throws IllegalArgumentException"}
	}
	p.now = now
	delta := n - p.cfg.Core
	p.cfg.Core = n
	if p.wc > n {
		p.interruptIdleWorkers(false)
	} else if delta > 0 {
		for k := min(delta, p.queued); k > 0; k-- {
			if ok, _ := p.addWorker(nil, true); !ok || p.queued == 0 {
				break
			}
		}
	}
	return nil
}

// SetMaximumPoolSize is setMaximumPoolSize(n) (R22): workers above the new
// max leave as they become idle.
func (p *ThreadPoolExecutor) SetMaximumPoolSize(now time.Duration, n int) error {
	if p.setterBan != nil {
		return p.banned("max")
	}
	if n <= 0 || n < p.cfg.Core || n > Unbounded {
		return &ConfigError{"max", fmt.Sprintf("must be in max(1, core (%d))..%d, got %d", p.cfg.Core, Unbounded, n), "R22: setMaximumPoolSize throws IllegalArgumentException"}
	}
	p.now = now
	p.cfg.Max = n
	if p.wc > n {
		p.interruptIdleWorkers(false)
	}
	return nil
}

// SetKeepAliveTime is setKeepAliveTime(d) (R23): a shorter keepAlive
// interrupts idle workers, whose waits restart with it from now.
func (p *ThreadPoolExecutor) SetKeepAliveTime(now time.Duration, d time.Duration) error {
	if p.setterBan != nil {
		return p.banned("keepAlive")
	}
	if d < 0 {
		return &ConfigError{"keepAlive", fmt.Sprintf("must be >= 0, got %v", d), "R23: setKeepAliveTime throws IllegalArgumentException"}
	}
	if d == 0 && p.cfg.CoreTimeOut {
		return &ConfigError{"keepAlive", "must be > 0 while allowCoreThreadTimeOut is on", "R23: core threads must have nonzero keep alive times"}
	}
	p.now = now
	delta := d - p.cfg.KeepAlive
	p.cfg.KeepAlive = d
	if delta < 0 {
		p.interruptIdleWorkers(false)
	}
	return nil
}

// AllowCoreThreadTimeOut is allowCoreThreadTimeOut(v) (R24): turning it on
// interrupts idle workers; turning it off interrupts nobody.
func (p *ThreadPoolExecutor) AllowCoreThreadTimeOut(now time.Duration, v bool) error {
	if p.setterBan != nil {
		return p.banned("allowCoreThreadTimeOut")
	}
	if v && p.cfg.KeepAlive <= 0 {
		return &ConfigError{"allowCoreThreadTimeOut", "needs keepAlive > 0", "R24: core threads must have nonzero keep alive times"}
	}
	p.now = now
	if v != p.cfg.CoreTimeOut {
		p.cfg.CoreTimeOut = v
		if v {
			p.interruptIdleWorkers(false)
		}
	}
	return nil
}
