package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/importconf"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// fromFlags are the flags that read the user's real configuration.
func fromFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "take the pool from a Tomcat server.xml or a Spring Boot application.properties / application.yml"},
		&cli.StringFlag{Name: "pool", Usage: "with --from: which pool (a connector name like http-nio-8080, an <Executor> name, applicationTaskExecutor, or a thread name prefix)"},
		&cli.StringSliceFlag{Name: "profile", Usage: "with --from: active Spring profiles"},
		&cli.StringFlag{Name: "tomcat-version", Usage: "with --from: the Tomcat version, e.g. 9.0.85 (default: a current 10.1)"},
		&cli.StringFlag{Name: "spring-boot-version", Usage: "with --from: the Spring Boot version, e.g. 2.7.18 (default: the pom.xml / build.gradle beside the file, else a current one)"},
		&cli.StringSliceFlag{Name: "D", Usage: "with --from: a placeholder's value, -D name=value (a system property, an environment variable)"},
		&cli.StringSliceFlag{Name: "properties", Usage: "with --from: a .properties file of placeholder values (catalina.properties)"},
		&cli.BoolFlag{Name: "strict", Usage: "with --from: make every warning (another embedded server, an ignored legacy key, a version assumed) an error"},
		&cli.StringFlag{Name: "datasource", Usage: "with --from: the scenario's hikari resource that spring.datasource.hikari.* configures (default: its only one)"},
	}
}

// placeholderValues gathers --properties files, then -D pairs (which win).
func placeholderValues(c *cli.Context) (map[string]string, error) {
	props := map[string]string{}
	for _, f := range c.StringSlice("properties") {
		m, err := importconf.ReadProperties(f)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			props[k] = v
		}
	}
	for _, d := range c.StringSlice("D") {
		k, v, ok := strings.Cut(d, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &usageError{fmt.Sprintf("-D %s: want -D name=value", d)}
		}
		props[strings.TrimSpace(k)] = v
	}
	return props, nil
}

// warn prints the warnings that change the meaning of the answer, before
// it, on stderr; with --strict the first one is an error (exit 2).
func warn(c *cli.Context, ws []importconf.Warning) error {
	for _, w := range ws {
		if c.Bool("strict") {
			return inputerr.New(w.File, w.Line, 0, w.Key, w.Msg+" (an error with --strict)", w.Remedy)
		}
		fmt.Fprintf(c.App.ErrWriter, "poolsim: warning: %s\n", w)
	}
	return nil
}

// workloadFlags replace the scenario's workload with recorded traffic.
func workloadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "accesslog", Usage: "replay this Tomcat / Spring Boot access log as the workload"},
		&cli.StringFlag{Name: "pattern", Usage: "with --accesslog: the AccessLogValve pattern it was written with (or common / combined)"},
		&cli.StringFlag{Name: "d-unit", Usage: "with --accesslog: the unit of %D: us (Tomcat 10+) or ms (Tomcat 9 and earlier)"},
		&cli.StringFlag{Name: "trace", Usage: "replay this CSV trace (arrival_s,service_s[,priority][,fail]) as the workload"},
	}
}

// workloadSets turns the workload flags into --set overrides.
func workloadSets(c *cli.Context) ([]string, error) {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	// A file that cannot be read is named here, before it becomes a --set
	// override whose error would name the override instead.
	for _, f := range []string{"accesslog", "trace"} {
		if p := c.String(f); p != "" {
			if fi, err := os.Stat(p); err != nil || fi.IsDir() {
				why := "is a directory"
				if err != nil {
					why = errors.Unwrap(err).Error()
				}
				return nil, inputerr.New(p, 0, 0, "--"+f, "cannot read the "+map[string]string{"accesslog": "access log", "trace": "trace"}[f]+": "+why, "")
			}
		}
	}
	switch {
	case c.String("accesslog") != "" && c.String("trace") != "":
		return nil, &usageError{"give --accesslog or --trace, not both"}
	case c.String("accesslog") != "":
		if c.String("pattern") == "" {
			return nil, &usageError{"--accesslog needs --pattern: the AccessLogValve pattern the log was written with (or common / combined)"}
		}
		unit := ""
		if u := c.String("d-unit"); u != "" {
			unit = fmt.Sprintf(", durationUnit: %s", strconv.Quote(u))
		}
		return []string{fmt.Sprintf("workload={accesslog: {file: %s, pattern: %s%s}}", strconv.Quote(abs(c.String("accesslog"))), strconv.Quote(c.String("pattern")), unit)}, nil
	case c.String("trace") != "":
		return []string{fmt.Sprintf("workload={trace: %s}", strconv.Quote(abs(c.String("trace"))))}, nil
	case c.String("pattern") != "" || c.String("d-unit") != "":
		return nil, &usageError{"--pattern and --d-unit go with --accesslog"}
	}
	return nil, nil
}

// importedPool is a pool read from the user's configuration, as --set
// overrides of the scenario's pool block, plus what was found and defaulted.
type importedPool struct {
	pool importconf.Pool
	sets []string
	// ds is the DataSource the configuration has (nil: none), applied to
	// the scenario's hikari resource by dataSourceSets.
	ds *importconf.DataSource
	// notes are what the reading itself noted (the profile files and build
	// file read, the Spring Boot version taken from it, documents skipped).
	notes []string
}

// importPool reads --from and picks the pool named by --pool (or the only
// one, or the first Tomcat connector's).
func importPool(c *cli.Context) (*importedPool, error) {
	path := c.String("from")
	if path == "" {
		return nil, nil
	}
	props, err := placeholderValues(c)
	if err != nil {
		return nil, err
	}
	st, err := importconf.Load(path, importconf.Options{Profiles: c.StringSlice("profile"), TomcatVersion: c.String("tomcat-version"),
		SpringBootVersion: c.String("spring-boot-version"), Properties: props})
	if err != nil {
		return nil, err
	}
	if len(st.Pools) == 0 {
		return nil, inputerr.New(path, 0, 0, "", "no thread pool found", "a <Connector> or <Executor> in server.xml, or server.tomcat.* / spring.task.execution.* properties")
	}
	want := c.String("pool")
	var pick *importconf.Pool
	var names []string
	for i := range st.Pools {
		p := &st.Pools[i]
		names = append(names, p.Name)
		if want != "" && (p.Name == want || p.ThreadNamePrefix == want || strings.TrimSuffix(p.ThreadNamePrefix, "-exec-") == want) {
			pick = p
		}
	}
	switch {
	case want != "" && pick == nil:
		return nil, inputerr.New(path, 0, 0, "--pool", fmt.Sprintf("no pool named %q", want), "one of "+strings.Join(names, ", "))
	case pick == nil && len(st.Pools) == 1:
		pick = &st.Pools[0]
	case pick == nil:
		// Prefer a connector's pool; the request threads are what users ask about.
		for i := range st.Pools {
			if st.Pools[i].Kind != importconf.KindSpringTask && len(st.Pools[i].UsedBy)+btoi(st.Pools[i].Kind == importconf.KindTomcatConnector) > 0 {
				pick = &st.Pools[i]
				break
			}
		}
		if pick == nil {
			pick = &st.Pools[0]
		}
	}
	if pick.Unsupported != "" {
		return nil, inputerr.New(pick.File, pick.Line, 0, pick.Name, pick.Unsupported, "")
	}
	if err := warn(c, append(append([]importconf.Warning(nil), st.Warnings...), pick.Warnings...)); err != nil {
		return nil, err
	}
	ip := &importedPool{pool: *pick, sets: poolSets(*pick), notes: st.Notes}
	if len(st.DataSources) > 0 {
		ip.ds = &st.DataSources[0]
	}
	return ip, nil
}

// dataSourceSets turns the configuration's DataSource into --set overrides
// of the scenario's hikari resource (--datasource names it; else the
// scenario's only one). A scenario whose tasks hold no connection gets a
// note: the pool was read, not simulated.
func (ip *importedPool) dataSourceSets(c *cli.Context, sc *scenarios.Scenario) ([]string, error) {
	ds := ip.ds
	if ds == nil {
		if c.String("datasource") != "" {
			return nil, inputerr.New(c.String("from"), 0, 0, "--datasource", "the configuration has no spring.datasource.* key", "")
		}
		return nil, nil
	}
	if ds.Unsupported != "" {
		return nil, inputerr.New(ds.File, ds.Line, 0, "spring.datasource.type", ds.Unsupported, "")
	}
	var hikari []string
	for _, r := range sc.Resources {
		if r.Type == "hikari" {
			hikari = append(hikari, r.Name)
		}
	}
	name := c.String("datasource")
	switch {
	case name != "" && !slices.Contains(hikari, name):
		return nil, inputerr.New(sc.Path, 0, 0, "--datasource", fmt.Sprintf("the scenario has no hikari resource %q", name), "one of: "+strings.Join(hikari, ", "))
	case name == "" && len(hikari) == 0:
		fmt.Fprintf(c.App.ErrWriter, "poolsim: note: %s configures a HikariCP DataSource, but the scenario's tasks hold no connection, so it is not simulated (declare resources: {db: {type: hikari}} and a hold step)\n", ds.File)
		return nil, nil
	case name == "" && len(hikari) > 1:
		return nil, inputerr.New(sc.Path, 0, 0, "--datasource", "the scenario has several hikari resources: name the one spring.datasource.hikari.* configures", "one of: "+strings.Join(hikari, ", "))
	case name == "":
		name = hikari[0]
	}
	var sets []string
	for _, prop := range ds.Set {
		v := ""
		switch prop {
		case "maximumPoolSize":
			v = strconv.Itoa(ds.MaximumPoolSize)
		case "minimumIdle":
			v = strconv.Itoa(ds.MinimumIdle)
		case "connectionTimeout":
			v = ds.ConnectionTimeout.String()
		case "idleTimeout":
			v = ds.IdleTimeout.String()
		case "maxLifetime":
			v = ds.MaxLifetime.String()
		}
		sets = append(sets, fmt.Sprintf("resources.%s.%s=%s", name, prop, v))
	}
	return sets, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// poolSets turns an imported pool into --set overrides of pool.*.
func poolSets(p importconf.Pool) []string {
	if p.VirtualThreads {
		// A virtual thread per task replaces the pool (R141–R143): the
		// scenario's jvm block (or host.cpus) gives the carriers.
		switch {
		case p.Kind == importconf.KindSpringTask && p.ConcurrencyLimit >= 0:
			// spring.task.execution.simple.* (R142, R143).
			return []string{fmt.Sprintf("pool={preset: simple-async, concurrencyLimit: %d, rejectTasksWhenLimitReached: %v}", p.ConcurrencyLimit, p.RejectWhenLimited)}
		case p.Kind == importconf.KindSpringTask:
			return []string{"pool={preset: simple-async}"}
		case strings.HasSuffix(strings.ToLower(p.File), ".xml"):
			return []string{"pool={preset: tomcat-virtual}"}
		default:
			return []string{"pool={preset: spring-boot-virtual}"}
		}
	}
	switch p.Kind {
	case importconf.KindJetty:
		return []string{fmt.Sprintf("pool={preset: spring-boot-jetty, core: %d, max: %s, keepAlive: %v}", p.Core, model.SizeString(p.Max), p.KeepAlive)}
	case importconf.KindTomcatConnector, importconf.KindTomcatExecutor:
		preset := "tomcat"
		if p.Kind == importconf.KindTomcatExecutor {
			preset = "tomcat-executor"
		}
		return []string{fmt.Sprintf("pool={preset: %s, core: %d, max: %s, keepAlive: %v, queue: {type: tomcat, capacity: %s}, threadNamePrefix: %q}",
			preset, p.Core, model.SizeString(p.Max), p.KeepAlive, model.SizeString(p.MaxQueueSize), p.ThreadNamePrefix)}
	}
	queue := fmt.Sprintf("{type: linked, capacity: %s}", model.SizeString(p.MaxQueueSize))
	if p.MaxQueueSize <= 0 {
		queue = "{type: synchronous}" // Spring: queue-capacity <= 0 means a SynchronousQueue
	}
	return []string{fmt.Sprintf("pool={preset: jdk, core: %d, max: %s, keepAlive: %v, allowCoreThreadTimeOut: %v, prestart: %v, queue: %s, threadNamePrefix: %q}",
		p.Core, model.SizeString(p.Max), p.KeepAlive, p.AllowCoreThreadTimeOut, p.Prestart, queue, p.ThreadNamePrefix)}
}

// describe prints which keys were found and which defaults were used.
func (ip *importedPool) describe(w io.Writer) {
	p := ip.pool
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.VirtualThreads {
		fmt.Fprintf(w, "pool from %s: %s %q runs on virtual threads, a new one per task (simulated as %s); the pool numbers below have no effect\n",
			where, p.Kind, p.Name, strings.TrimSuffix(strings.TrimPrefix(ip.sets[0], "pool={"), "}"))
	} else {
		fmt.Fprintf(w, "pool from %s: %s %q (threads %s*): core %d, max %s, keepAlive %v, queue %s\n",
			where, p.Kind, p.Name, p.ThreadNamePrefix, p.Core, model.SizeString(p.Max), p.KeepAlive, model.SizeString(p.MaxQueueSize))
	}
	found := append([]importconf.Origin(nil), p.Found...)
	sort.SliceStable(found, func(i, j int) bool { return found[i].Line < found[j].Line })
	for _, f := range found {
		fmt.Fprintf(w, "  found    %s = %s (%s:%d)\n", f.Key, f.Value, f.File, f.Line)
	}
	for _, d := range p.Defaulted {
		fmt.Fprintf(w, "  default  %s = %s (%s)\n", d.Key, d.Value, d.Reason)
	}
	for _, ig := range p.Ignored {
		fmt.Fprintf(w, "  ignored  %s = %s (%s:%d): %s\n", ig.Key, ig.Value, ig.File, ig.Line, ig.Reason)
	}
	for _, n := range slices.Concat(ip.notes, p.Notes) {
		fmt.Fprintf(w, "  note     %s\n", n)
	}
	if ds := ip.ds; ds != nil {
		name := ds.Name
		if name == "" {
			name = "HikariPool-1"
		}
		fmt.Fprintf(w, "datasource from %s: HikariCP %q\n", ds.File, name)
		for _, f := range ds.Found {
			fmt.Fprintf(w, "  found    %s = %s (%s:%d)\n", f.Key, f.Value, f.File, f.Line)
		}
		for _, d := range ds.Defaulted {
			fmt.Fprintf(w, "  default  %s = %s (%s)\n", d.Key, d.Value, d.Reason)
		}
		for _, n := range ds.Notes {
			fmt.Fprintf(w, "  note     %s\n", n)
		}
	}
	fmt.Fprintln(w)
}
