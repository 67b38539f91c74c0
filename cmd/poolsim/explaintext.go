package main

import (
	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// explainText returns the explanation shown in reports. The explain engine
// (issue 3) is not wired in yet, so reports carry none; report.Scenario
// documents Explain as optional.
func explainText(c *cli.Context, sc *scenarios.Scenario, res *sim.Result) string { return "" }
