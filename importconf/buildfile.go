package importconf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsim/poolsim/internal/lazyre"
)

// Build is what a Spring Boot project's build file says about the
// application that reads a Spring configuration file.
type Build struct {
	// File is the pom.xml or build.gradle(.kts) read; "" when none.
	File string
	// SpringBootVersion is the Spring Boot version it uses, as written
	// ("3.2.5", "2.1.4.RELEASE"); "" when the file does not say, or says
	// something that is not a version (then a note quotes it).
	SpringBootVersion string
	// Server is the embedded web server its starters choose: "tomcat",
	// "jetty", "undertow" or "netty" (WebFlux without a servlet
	// starter); "" when the starters do not say.
	Server string
	// Notes say what could not be read (a version given as a property the
	// file does not define).
	Notes []string
}

// buildFiles are the build files FindBuild looks for, in order.
var buildFiles = []string{"pom.xml", "build.gradle", "build.gradle.kts"}

// FindBuild reads the build file of the project a Spring configuration
// file belongs to: the pom.xml or build.gradle(.kts) beside it, or, for a
// file under src/main/resources, at the module's root. A multi-module
// project's version is also looked for in the parent directory's build
// file. It returns a zero Build when there is none.
func FindBuild(springFile string) (Build, error) {
	dir := filepath.Dir(springFile)
	dirs := []string{dir}
	slashed := filepath.ToSlash(dir)
	if i := strings.LastIndex(slashed, "/src/main/resources"); i >= 0 {
		dirs = append(dirs, filepath.FromSlash(slashed[:i]))
	} else if strings.HasPrefix(slashed, "src/main/resources") {
		dirs = append(dirs, ".")
	}
	for _, d := range dirs {
		for _, name := range buildFiles {
			path := filepath.Join(d, name)
			data, err := readFile(path)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				return Build{}, err
			}
			b := ParseBuild(path, data)
			if b.SpringBootVersion == "" {
				// A module of a multi-module build: its parent's file.
				for _, pn := range buildFiles {
					pp := filepath.Clean(filepath.Join(d, "..", pn))
					if pdata, err := readFile(pp); err == nil {
						if pb := ParseBuild(pp, pdata); pb.SpringBootVersion != "" {
							b.SpringBootVersion = pb.SpringBootVersion
							b.Notes = append(b.Notes, "the Spring Boot version comes from the parent build file "+pp)
							break
						}
					}
				}
			}
			return b, nil
		}
	}
	return Build{}, nil
}

// ParseBuild reads a pom.xml (by content: it starts with "<") or a Gradle
// build script. It never fails: what it cannot read stays empty.
func ParseBuild(name string, data []byte) Build {
	b := Build{File: name}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); bytes.HasPrefix(t, []byte("<")) {
		parsePOM(&b, data)
	} else {
		parseGradle(&b, string(data))
	}
	if v := b.SpringBootVersion; v != "" && !versionLike.MatchString(v) {
		b.Notes = append(b.Notes, fmt.Sprintf("%s names Spring Boot version %q, which is not a version", name, v))
		b.SpringBootVersion = ""
	}
	return b
}

// pom is the part of a Maven POM that tells the Spring Boot version and
// the starters.
type pom struct {
	Parent struct {
		ArtifactID string `xml:"artifactId"`
		Version    string `xml:"version"`
	} `xml:"parent"`
	Properties struct {
		Any []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Managed []pomDep `xml:"dependencyManagement>dependencies>dependency"`
	Deps    []pomDep `xml:"dependencies>dependency"`
}

type pomDep struct {
	ArtifactID string   `xml:"artifactId"`
	Version    string   `xml:"version"`
	Exclusions []string `xml:"exclusions>exclusion>artifactId"`
}

func parsePOM(b *Build, data []byte) {
	var p pom
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	if err := d.Decode(&p); err != nil {
		b.Notes = append(b.Notes, b.File+" is not well-formed XML: "+err.Error())
		return
	}
	props := map[string]string{}
	for _, a := range p.Properties.Any {
		props[a.XMLName.Local] = strings.TrimSpace(a.Value)
	}
	resolve := func(v string) string {
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") {
			if r, ok := props[v[2:len(v)-1]]; ok {
				return r
			}
			b.Notes = append(b.Notes, b.File+" gives the Spring Boot version as "+v+", which it does not define")
			return ""
		}
		return v
	}
	switch {
	case p.Parent.ArtifactID == "spring-boot-starter-parent" || p.Parent.ArtifactID == "spring-boot-parent" || p.Parent.ArtifactID == "spring-boot-dependencies":
		b.SpringBootVersion = resolve(p.Parent.Version)
	default:
		for _, m := range p.Managed {
			if m.ArtifactID == "spring-boot-dependencies" {
				b.SpringBootVersion = resolve(m.Version)
			}
		}
		if b.SpringBootVersion == "" {
			for _, k := range []string{"spring-boot.version", "spring.boot.version", "springboot.version", "spring-boot-version"} {
				if v, ok := props[k]; ok {
					b.SpringBootVersion = v
					break
				}
			}
		}
	}
	var starters []string
	excluded := map[string]bool{}
	for _, dep := range p.Deps {
		starters = append(starters, dep.ArtifactID)
		for _, e := range dep.Exclusions {
			excluded[e] = true
		}
	}
	b.Server = serverOf(starters, excluded)
}

var (
	// versionLike is what a build file's Spring Boot version must look
	// like to be kept: digits first, then digits, letters, dots, dashes,
	// underscores or pluses ("3.2.5", "2.1.4.RELEASE", "3.4.0-M1").
	versionLike  = lazyre.New(`^[0-9][0-9A-Za-z._+-]*$`)
	gradlePlugin = lazyre.New(`id\s*\(?\s*["']org\.springframework\.boot["']\s*\)?\s*version\s*\(?\s*["']([0-9][^"']*)["']`)
	gradleVar    = lazyre.New(`(?i)spring_?boot_?version\s*=\s*["']([0-9][^"']*)["']`)
	gradleCoord  = lazyre.New(`org\.springframework\.boot:spring-boot-(?:gradle-plugin|dependencies|starter-parent):([0-9][^"'\s)]*)`)
	gradleDep    = lazyre.New(`spring-boot-starter-[a-z0-9-]+`)
)

func parseGradle(b *Build, text string) {
	for _, re := range []*lazyre.Regexp{gradlePlugin, gradleVar, gradleCoord} {
		if m := re.FindStringSubmatch(text); m != nil {
			b.SpringBootVersion = m[1]
			break
		}
	}
	excluded := map[string]bool{}
	var starters []string
	for _, line := range strings.Split(text, "\n") {
		ms := gradleDep.FindAllString(line, -1)
		if strings.Contains(line, "exclude") {
			for _, m := range ms {
				excluded[m] = true
			}
			continue
		}
		starters = append(starters, ms...)
	}
	b.Server = serverOf(starters, excluded)
}

// serverOf decides the embedded server from the starters, as Spring Boot's
// auto-configuration decides it from the classpath: Jetty or Undertow when
// their starter is there (and Tomcat is usually excluded), Tomcat with the
// servlet web starter, Reactor Netty with WebFlux alone.
func serverOf(starters []string, excluded map[string]bool) string {
	has := map[string]bool{}
	for _, s := range starters {
		has[s] = true
	}
	switch {
	case has["spring-boot-starter-jetty"]:
		return "jetty"
	case has["spring-boot-starter-undertow"]:
		return "undertow"
	case has["spring-boot-starter-tomcat"] || (has["spring-boot-starter-web"] && !excluded["spring-boot-starter-tomcat"]):
		return "tomcat"
	case has["spring-boot-starter-webflux"] && !has["spring-boot-starter-web"]:
		return "netty"
	}
	return ""
}
