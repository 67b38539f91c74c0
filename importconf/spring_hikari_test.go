package importconf

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSpringDataSource: spring.datasource.hikari.* binds onto HikariConfig
// (milliseconds, relaxed names, YAML); an absent key is a HikariCP default
// (R150); no spring.datasource key, no DataSource; another pool type is
// named as unsupported; a duration string is an error at its line, as it
// stops the application.
func TestSpringDataSource(t *testing.T) {
	props := "spring.datasource.url=jdbc:postgresql://db/app\n" +
		"spring.datasource.hikari.maximumPoolSize=8\n" +
		"spring.datasource.hikari.minimum-idle=2\n" +
		"spring.datasource.hikari.connection-timeout=${DB_TIMEOUT:2500}\n" +
		"spring.datasource.hikari.pool-name=orders\n"
	s, err := ParseProperties("application.properties", []byte(props), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.DataSources) != 1 {
		t.Fatalf("%d data sources, want 1", len(s.DataSources))
	}
	ds := s.DataSources[0]
	if ds.Name != "orders" || ds.MaximumPoolSize != 8 || ds.MinimumIdle != 2 || ds.ConnectionTimeout != 2500*time.Millisecond {
		t.Errorf("got %+v", ds)
	}
	if want := []string{"maximumPoolSize", "minimumIdle", "connectionTimeout"}; !slices.Equal(ds.Set, want) {
		t.Errorf("set %v, want %v", ds.Set, want)
	}
	var defaulted []string
	for _, d := range ds.Defaulted {
		defaulted = append(defaulted, d.Key)
	}
	if want := []string{"spring.datasource.hikari.idle-timeout", "spring.datasource.hikari.max-lifetime"}; !slices.Equal(defaulted, want) {
		t.Errorf("defaulted %v, want %v", defaulted, want)
	}
	if ds.Line != 2 {
		t.Errorf("line %d, want 2 (the first key read)", ds.Line)
	}

	y := "spring:\n  datasource:\n    hikari:\n      max-lifetime: 600000\n"
	s, err = ParseSpringYAML("application.yml", []byte(y), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.DataSources) != 1 || s.DataSources[0].MaxLifetime != 10*time.Minute || len(s.DataSources[0].Notes) == 0 {
		t.Errorf("yaml: %+v", s.DataSources)
	}

	s, err = ParseProperties("application.properties", []byte("server.port=8081\n"), Options{})
	if err != nil || len(s.DataSources) != 0 {
		t.Errorf("no datasource key: %v, %+v", err, s.DataSources)
	}

	s, err = ParseProperties("application.properties", []byte("spring.datasource.type=org.apache.tomcat.jdbc.pool.DataSource\n"), Options{})
	if err != nil || len(s.DataSources) != 1 || !strings.Contains(s.DataSources[0].Unsupported, "not HikariCP") {
		t.Errorf("tomcat-jdbc: %v, %+v", err, s.DataSources)
	}

	_, err = ParseProperties("application.properties", []byte("x=1\nspring.datasource.hikari.connection-timeout=30s\n"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "application.properties:2:") || !strings.Contains(err.Error(), "milliseconds") {
		t.Errorf("30s: got %v", err)
	}
}
