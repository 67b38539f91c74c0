package importconf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// loadSpring parses a Spring Boot file and, unless opts.NoProfileSiblings,
// the application-{profile}.* files Spring Boot would read next to it.
func loadSpring(path string, data []byte, format Format, opts Options) (*Settings, error) {
	main, err := parseSpringDocs(path, data, format)
	if err != nil {
		return nil, err
	}
	sources := []springSource{main}
	var notes []string
	if !opts.NoProfileSiblings {
		active, _ := activeProfiles(sources, opts)
		dir := filepath.Dir(path)
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for _, p := range active {
			// For one location Spring Boot reads .properties after .yml,
			// so the properties file wins.
			for _, ext := range []string{".yml", ".yaml", ".properties"} {
				sib := filepath.Join(dir, base+"-"+p+ext)
				if sib == path {
					continue
				}
				b, err := os.ReadFile(sib)
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				if err != nil {
					return nil, &inputerr.Error{File: sib, Msg: "cannot read the profile's configuration: " + errText(err), Err: err}
				}
				f := FormatYAML
				if ext == ".properties" {
					f = FormatProperties
				}
				src, err := parseSpringDocs(sib, b, f)
				if err != nil {
					return nil, err
				}
				src.profile = p
				sources = append(sources, src)
				notes = append(notes, fmt.Sprintf("read %s for active profile %q, as Spring Boot does", sib, p))
			}
		}
	}
	var build Build
	if !opts.NoBuildFile {
		if build, err = FindBuild(path); err != nil {
			return nil, err
		}
		notes = append(notes, build.Notes...)
		// ParseBuild keeps only a version that reads as one (its note
		// says what else the file named).
		if v := build.SpringBootVersion; v != "" {
			if opts.SpringBootVersion == "" {
				opts.SpringBootVersion = v
				notes = append(notes, fmt.Sprintf("Spring Boot %s, from %s", v, build.File))
			} else if opts.SpringBootVersion != v {
				notes = append(notes, fmt.Sprintf("Spring Boot %s as given, although %s names %s", opts.SpringBootVersion, build.File, v))
			}
		}
	}
	s, err := bindSpring(path, format, sources, opts, build)
	if err != nil {
		return nil, err
	}
	s.Notes = append(notes, s.Notes...)
	return s, nil
}

// ParseProperties reads Spring Boot properties from data (a file named name)
// without looking for profile-specific sibling files.
func ParseProperties(name string, data []byte, opts Options) (*Settings, error) {
	src, err := parseSpringDocs(name, data, FormatProperties)
	if err != nil {
		return nil, err
	}
	return bindSpring(name, FormatProperties, []springSource{src}, opts, Build{})
}

// ParseSpringYAML reads Spring Boot YAML from data (a file named name)
// without looking for profile-specific sibling files.
func ParseSpringYAML(name string, data []byte, opts Options) (*Settings, error) {
	src, err := parseSpringDocs(name, data, FormatYAML)
	if err != nil {
		return nil, err
	}
	return bindSpring(name, FormatYAML, []springSource{src}, opts, Build{})
}

// springSource is one Spring file split into documents.
type springSource struct {
	file    string
	docs    []document
	profile string // the profile a sibling file was read for; "" for the main file
}

func parseSpringDocs(name string, data []byte, format Format) (springSource, error) {
	var docs []document
	var err error
	if format == FormatYAML {
		docs, err = parseYAML(name, data)
	} else {
		docs, err = parseProperties(name, data)
	}
	return springSource{file: name, docs: docs}, err
}

// canonical is Spring Boot's relaxed-binding form of a property name: each
// dot-separated element lower-cased with "-" and "_" removed, so
// server.tomcat.threads.maxQueueCapacity, ...max-queue-capacity,
// ...max_queue_capacity and ...MAX-QUEUE-CAPACITY are one key.
func canonical(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '-' || c == '_':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// entry is a property after merging all documents, with its file.
type entry struct {
	property
	file string
}

const (
	keyOnProfile       = "spring.config.activate.onprofile"
	keyOnCloudPlatform = "spring.config.activate.oncloudplatform"
	keyLegacyProfiles  = "spring.profiles"
	keyProfilesActive  = "spring.profiles.active"
	keyProfilesDefault = "spring.profiles.default"
	keyProfilesInclude = "spring.profiles.include"
	keyProfileGroup    = "spring.profiles.group."
)

// docActivation returns the profile expression of a document, if any.
func docActivation(d document) (expr string, cloud bool, legacy bool, found bool) {
	for _, p := range d.props {
		switch canonical(p.key) {
		case keyOnProfile:
			expr, found = p.value, true
		case keyLegacyProfiles:
			expr, found, legacy = p.value, true, true
		case keyOnCloudPlatform:
			cloud = true
		}
	}
	return
}

// listValue splits a comma-separated Spring list (also key[0], key[1] items).
func listValue(props []property, key string) ([]string, bool) {
	var out []string
	found := false
	for _, p := range props {
		c := canonical(p.key)
		if c == key || strings.HasPrefix(c, key+"[") {
			if c == key {
				out = out[:0]
			}
			found = true
			for _, v := range strings.Split(p.value, ",") {
				if v = strings.TrimSpace(v); v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out, found
}

// activeProfiles decides the active profiles: opts.Profiles, else
// spring.profiles.active from the documents without activation, else
// spring.profiles.default, else "default"; plus spring.profiles.include and
// spring.profiles.group expansion.
func activeProfiles(sources []springSource, opts Options) ([]string, []string) {
	var notes []string
	var base []property
	for _, d := range sources[0].docs {
		if _, _, _, found := docActivation(d); !found {
			base = append(base, d.props...)
		}
	}
	// Profile lists may hold placeholders: resolve them like any value.
	byKey := make(map[string]string, len(base))
	for _, p := range base {
		byKey[canonical(p.key)] = p.value
	}
	lookup := func(name string) (string, bool) {
		if v, ok := opts.Properties[name]; ok {
			return v, true
		}
		v, ok := byKey[canonical(name)]
		return v, ok
	}
	for i := range base {
		if !strings.Contains(base[i].value, "${") {
			continue
		}
		if v, _, err := springResolve(base[i].value, lookup); err == nil {
			base[i].value = v
		}
	}
	var active []string
	switch {
	case opts.Profiles != nil:
		active = append(active, opts.Profiles...)
	default:
		if v, ok := listValue(base, keyProfilesActive); ok {
			active = v
			notes = append(notes, fmt.Sprintf("active profiles %q come from the file's spring.profiles.active", strings.Join(v, ",")))
		} else if v, ok := listValue(base, keyProfilesDefault); ok {
			active = v
		} else {
			active = []string{"default"}
		}
	}
	if inc, ok := listValue(base, keyProfilesInclude); ok {
		active = append(inc, active...)
	}
	// Groups: spring.profiles.group.<name>=a,b adds a and b after <name>.
	var expanded []string
	seen := map[string]bool{}
	var add func(p string, depth int)
	add = func(p string, depth int) {
		if seen[p] || depth > 16 {
			return
		}
		seen[p] = true
		expanded = append(expanded, p)
		if members, ok := listValue(base, keyProfileGroup+canonical(p)); ok {
			for _, m := range members {
				add(m, depth+1)
			}
		}
	}
	for _, p := range active {
		add(p, 0)
	}
	return expanded, notes
}

// bindSpring merges the active documents and reads the pool settings.
func bindSpring(file string, format Format, sources []springSource, opts Options, build Build) (*Settings, error) {
	s := &Settings{File: file, Format: format}
	active, notes := activeProfiles(sources, opts)
	s.Profiles = active
	s.Notes = append(s.Notes, notes...)
	boot, bootKnown := parseVersion(opts.SpringBootVersion)
	if opts.SpringBootVersion != "" && !bootKnown {
		return nil, inputerr.New(file, 0, 0, "", fmt.Sprintf("Spring Boot version %q: not a version", opts.SpringBootVersion), "e.g. 3.3.1 or 2.7.18")
	}

	merged := map[string]entry{}
	for _, src := range sources {
		s.Files = append(s.Files, src.file)
		for di, d := range src.docs {
			expr, cloud, legacy, found := docActivation(d)
			if cloud {
				s.Notes = append(s.Notes, fmt.Sprintf("%s: document %d (line %d) is activated by spring.config.activate.on-cloud-platform and was skipped", src.file, di+1, d.line))
				continue
			}
			if found {
				ok, err := matchProfiles(expr, active)
				if err != nil {
					return nil, inputerr.New(src.file, d.line, 0, "spring.config.activate.on-profile", err.Error(), "profile names combined with !, &, | and parentheses")
				}
				if legacy {
					s.Notes = append(s.Notes, fmt.Sprintf("%s: document %d uses spring.profiles, which Spring Boot 2.4 replaced by spring.config.activate.on-profile (an error in Boot 3 unless legacy processing is on)", src.file, di+1))
				}
				if !ok {
					continue
				}
			}
			for _, p := range d.props {
				merged[canonical(p.key)] = entry{property: p, file: src.file}
			}
		}
	}

	b := binder{s: s, merged: merged, opts: opts, boot: boot, bootKnown: bootKnown, build: build}
	s.Build = build
	if err := b.bind(); err != nil {
		return nil, err
	}
	return s, nil
}
