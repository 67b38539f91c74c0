package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Version is poolsim's release. Outputs are byte-identical for the same
// scenario, seed and version.
const Version = "0.1.0"

func version() string {
	v := Version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				v += "-dirty"
			}
		}
	}
	return v
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print poolsim's version and the pools it models",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "poolsim %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			fmt.Fprintln(c.App.Writer, "models: java.util.concurrent.ThreadPoolExecutor (JDK 17 and 25), org.apache.tomcat.util.threads.ThreadPoolExecutor (Tomcat 10.1)")
			return nil
		},
	}
}
