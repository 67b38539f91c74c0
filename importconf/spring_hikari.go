package importconf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// This file binds Spring Boot's DataSource: the HikariCP pool that
// DataSourceAutoConfiguration creates (DataSourceConfiguration.Hikari)
// for spring.datasource.*, with spring.datasource.hikari.* bound onto
// HikariConfig's setters. Spring Boot changes none of HikariCP's
// defaults (R150): ten connections, a fixed pool, a 30 s connection
// timeout.

const srcHikari = "HikariConfig defaults (R150); Spring Boot keeps them"

// DataSource is the connection pool of a Spring Boot configuration. The
// numbers are as the file gives them (HikariCP's own validation, R150,
// applies when the pool is simulated); a key the file leaves out is in
// Defaulted and left zero here, except where noted.
type DataSource struct {
	// Name is spring.datasource.hikari.pool-name, or "" (HikariCP then
	// names it HikariPool-1).
	Name string
	// MaximumPoolSize and MinimumIdle are 0 when not given (MinimumIdle
	// then equals the maximum: a fixed pool).
	MaximumPoolSize, MinimumIdle int
	// The timeouts, in HikariCP's milliseconds; zero when not given
	// (Set says which were).
	ConnectionTimeout, IdleTimeout, MaxLifetime time.Duration
	// Set lists the HikariConfig properties the file gives:
	// maximumPoolSize, minimumIdle, connectionTimeout, idleTimeout,
	// maxLifetime.
	Set []string
	// Unsupported, when not empty, says why poolsim cannot simulate this
	// DataSource (spring.datasource.type names another pool).
	Unsupported string

	File      string
	Line      int
	Found     []Origin
	Defaulted []Default
	Notes     []string
}

// hikariKeys are the spring.datasource.hikari.* keys poolsim reads, with
// the HikariConfig property each sets and its default.
var hikariKeys = []struct{ key, prop, def string }{
	{"spring.datasource.hikari.maximum-pool-size", "maximumPoolSize", "10"},
	{"spring.datasource.hikari.minimum-idle", "minimumIdle", "maximumPoolSize (a fixed pool)"},
	{"spring.datasource.hikari.connection-timeout", "connectionTimeout", "30000 ms"},
	{"spring.datasource.hikari.idle-timeout", "idleTimeout", "600000 ms"},
	{"spring.datasource.hikari.max-lifetime", "maxLifetime", "1800000 ms"},
}

// bindDataSource reads the DataSource, if the configuration has one (a
// spring.datasource.* key).
func (b *binder) bindDataSource() error {
	present := false
	for k := range b.merged {
		present = present || strings.HasPrefix(k, "spring.datasource.")
	}
	if !present {
		return nil
	}
	ds := DataSource{File: b.s.File}
	if e, ok, err := b.get("spring.datasource.type"); err != nil {
		return err
	} else if ok {
		ds.Found = append(ds.Found, b.origin(e))
		if t := strings.TrimSpace(e.value); t != "com.zaxxer.hikari.HikariDataSource" {
			ds.Unsupported = fmt.Sprintf("spring.datasource.type is %s, not HikariCP: poolsim models HikariCP's pool only", t)
		}
	}
	if e, ok, err := b.get("spring.datasource.hikari.pool-name"); err != nil {
		return err
	} else if ok {
		ds.Name = strings.TrimSpace(e.value)
		ds.Found = append(ds.Found, b.origin(e))
	}
	for _, k := range hikariKeys {
		e, ok, err := b.get(k.key)
		if err != nil {
			return err
		}
		if !ok {
			ds.Defaulted = append(ds.Defaulted, Default{Key: k.key, Value: k.def, Reason: srcHikari})
			continue
		}
		// HikariConfig's setters take an int or a long of milliseconds;
		// Spring's binder converts the text to that number, and a
		// duration such as "30s" stops the application from starting.
		n, perr := strconv.ParseInt(strings.TrimSpace(e.value), 10, 64)
		if perr != nil {
			return inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a number: HikariConfig.set%s takes %s", quote(e.value), strings.ToUpper(k.prop[:1])+k.prop[1:], unitOf(k.prop)),
				"an integer"+map[bool]string{true: "", false: " of milliseconds, e.g. 30000"}[strings.HasSuffix(k.prop, "Size") || k.prop == "minimumIdle"])
		}
		ds.Found = append(ds.Found, b.origin(e))
		ds.Set = append(ds.Set, k.prop)
		switch k.prop {
		case "maximumPoolSize":
			ds.MaximumPoolSize = int(n)
		case "minimumIdle":
			ds.MinimumIdle = int(n)
		case "connectionTimeout":
			ds.ConnectionTimeout = time.Duration(n) * time.Millisecond
		case "idleTimeout":
			ds.IdleTimeout = time.Duration(n) * time.Millisecond
		case "maxLifetime":
			ds.MaxLifetime = time.Duration(n) * time.Millisecond
		}
	}
	for _, o := range ds.Found { // the first line of the main file that configures it
		if o.File == b.s.File && (ds.Line == 0 || o.Line < ds.Line) {
			ds.Line = o.Line
		}
	}
	if !slices.Contains(ds.Set, "minimumIdle") {
		ds.Notes = append(ds.Notes, "minimumIdle is not set, so it equals maximumPoolSize: a fixed pool, whose idleTimeout does nothing (R150)")
	}
	b.s.DataSources = append(b.s.DataSources, ds)
	return nil
}

func unitOf(prop string) string {
	if strings.HasSuffix(prop, "Size") || prop == "minimumIdle" {
		return "an int"
	}
	return "a long of milliseconds"
}
