package threaddump

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Format writes a readable report of d for `poolsim jstack`: a header line,
// the thread counts, one table row per pool (Summarise) and the notes. The
// output depends only on d: the same dump always prints the same bytes.
func Format(w io.Writer, d *Dump) error {
	if d == nil {
		return fmt.Errorf("threaddump: format: no dump")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "thread dump %s (%s, line %d)", d.Name, d.Form, d.Line)
	for _, s := range []string{d.VM, d.Time} {
		if s != "" {
			b.WriteString(", " + s)
		}
	}
	if d.PID != 0 {
		fmt.Fprintf(&b, ", pid %d", d.PID)
	}
	b.WriteString("\n")

	pools := Summarise(d)
	internal, virtual, incomplete := 0, 0, 0
	for i := range d.Threads {
		switch t := &d.Threads[i]; {
		case t.Incomplete:
			incomplete++
		case t.JVMInternal:
			internal++
		case t.Virtual:
			virtual++
		}
	}
	inPools := 0
	for _, p := range pools {
		inPools += p.Threads
	}
	fmt.Fprintf(&b, "%d threads: %d in %d pools, %d in none, %d JVM-internal, %d virtual",
		len(d.Threads), inPools, len(pools), len(d.Threads)-inPools-internal-virtual-incomplete, internal, virtual)
	if incomplete > 0 {
		fmt.Fprintf(&b, ", %d cut by the truncation", incomplete)
	}
	b.WriteString("\n")

	if len(pools) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "POOL\tFAMILY\tTHREADS\tBUSY\tIDLE-TIMED\tIDLE-UNTIMED\tOTHER\tMAX#\tSTATES\tPARKED AT")
		inferred := false
		for _, p := range pools {
			states := p.StateCounts()
			if p.StatesInferred > 0 {
				states += " *"
				inferred = true
			}
			max := "-"
			if p.MaxNumber >= 0 {
				max = strconv.Itoa(p.MaxNumber)
			}
			sites := p.Sites()
			if sites == "" {
				sites = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n",
				p.Prefix, p.Family, p.Threads, p.Busy, p.IdleTimed, p.IdleUntimed, p.Other, max, states, sites)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("threaddump: format: %w", err)
		}
		if inferred {
			b.WriteString("* some states inferred from the frames: the dump prints none\n")
		}
	}
	if v := SummariseVirtual(d); v != nil {
		formatVirtual(&b, v)
	}
	if len(d.Notes) > 0 {
		b.WriteString("\nnotes:\n")
		for _, n := range d.Notes {
			b.WriteString("- " + n + "\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("threaddump: format: %w", err)
	}
	return nil
}

// String is Format's report.
func (d *Dump) String() string {
	var b strings.Builder
	if err := Format(&b, d); err != nil {
		return err.Error()
	}
	return b.String()
}
