package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/threaddump"
)

func jstackCommand() *cli.Command {
	return &cli.Command{
		Name:      "jstack",
		Usage:     "read a HotSpot thread dump and summarise its thread pools",
		ArgsUsage: "DUMP",
		Description: `Reads a HotSpot thread dump (jstack, jstack -l, jcmd Thread.print, kill -3 output in a log,
VisualVM and IntelliJ IDEA exports, jcmd Thread.dump_to_file text or JSON; JDK 6 to 25; JRockit dumps
and OpenJ9 javacores are refused by name), groups pool workers by name prefix
(http-nio-8080-exec-, pool-N-thread-, task-, qtp...-) and counts them by state and by where the
idle ones are parked: in poll(keepAlive) (TIMED_WAITING: may time out) or in take() (WAITING).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "pool", Usage: "show only pools whose name prefix contains this"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &usageError{"jstack takes exactly one thread dump file (usage: poolsim jstack DUMP [--pool PREFIX])"}
			}
			d, err := threaddump.ParseFile(c.Args().First())
			if err != nil {
				return err
			}
			w := c.App.Writer
			if err := threaddump.Format(w, d); err != nil {
				return err
			}
			filter := c.String("pool")
			for _, p := range threaddump.Summarise(d) {
				if filter != "" && !strings.Contains(p.Prefix, filter) {
					continue
				}
				interpretPool(w, p)
			}
			return nil
		},
	}
}

// interpretPool says in words what a pool's thread states mean, citing the
// rules of shared/spec/threadpool-semantics.md.
func interpretPool(w io.Writer, p threaddump.Pool) {
	switch p.Family {
	case threaddump.FamilyJDK, threaddump.FamilyTomcat, threaddump.FamilyScheduled, threaddump.FamilyJetty:
	default:
		return // ForkJoinPool and unknown pools are not modelled
	}
	if p.Busy+p.IdleTimed+p.IdleUntimed == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%s, %d threads):\n", p.Prefix, p.Family, p.Threads)
	switch p.Family {
	case threaddump.FamilyJDK, threaddump.FamilyTomcat:
		if p.IdleTimed > 0 && p.IdleUntimed == 0 {
			fmt.Fprintf(w, "  all %d idle workers wait in poll(keepAlive) (TIMED_WAITING): the pool is above its core size, or core\n"+
				"  threads may time out; each dies if it gets no task for a whole keepAlive (R15, R77).\n", p.IdleTimed)
			if p.Family == threaddump.FamilyTomcat || p.IdleTimed > 20 {
				fmt.Fprintf(w, "  Their queue hands tasks to the longest-idle worker (FIFO), so even light steady traffic can keep\n"+
					"  about rate × keepAlive of them alive indefinitely (R78). 'poolsim diagnose' infers that rate.\n")
			}
		}
		if p.IdleUntimed > 0 && p.IdleTimed == 0 {
			fmt.Fprintf(w, "  all %d idle workers wait in take() (WAITING): the pool is at or below its core size and they never time out (R15b, R20).\n", p.IdleUntimed)
		}
		if p.IdleTimed > 0 && p.IdleUntimed > 0 {
			fmt.Fprintf(w, "  %d idle in poll(keepAlive), %d in take(): the pool recently fell to its core size; workers whose wait began\n"+
				"  above core stay TIMED_WAITING until that wait ends (R60).\n", p.IdleTimed, p.IdleUntimed)
		}
		for _, s := range p.ParkSites {
			if s.Queue == threaddump.QueueSynchronous && s.Timed > 1 {
				fmt.Fprintf(w, "  %s: a SynchronousQueue; a non-fair one reuses the most recently idle worker (LIFO), so the others expire (R55).\n", s.Site)
			}
		}
	case threaddump.FamilyScheduled:
		fmt.Fprintf(w, "  a ScheduledThreadPoolExecutor: idle workers wait in DelayedWorkQueue.take; at most one (the leader) is\n"+
			"  TIMED_WAITING until the next task is due (R61, R93).\n")
	case threaddump.FamilyJetty:
		fmt.Fprintf(w, "  a Jetty QueuedThreadPool: idle threads wait in BlockingArrayQueue.poll(idleTimeout); the pool shrinks by at\n"+
			"  most one thread per idleTimeout, whatever the load (R104, R105).\n")
	}
	if p.Busy > 0 {
		fmt.Fprintf(w, "  %d busy: running tasks (their state is whatever the task does, R56).\n", p.Busy)
	}
}
