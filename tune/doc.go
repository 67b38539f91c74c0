// Package tune searches for the cheapest pool configuration that meets
// constraints — an SLO — on a scenario's traffic (poolsim tune; issue 17).
//
// A search is built from package sweep's parts:
//
//   - New checks a Config: the --vary keys and their values (sweep's
//     --param syntax, ParseVary), the constraints (sweep's --assert
//     language, compiled with sweep.CompileExpr) and the objective (a
//     summary metric, a varied key, or a cost expression);
//   - Tuner.Run runs rounds, each a sweep over a listed design
//     (sweep.NewDesign) whose points add replications until the 95%
//     intervals decide every constraint (sweep.Config.Decide): first the
//     coarse stage (the grid of the --vary values, or a Latin hypercube
//     when that grid is larger than Samples), then rounds bisecting each
//     numeric key where feasibility changes next to the best points and
//     the current configuration (sweep.Param.Midpoint), until nothing is
//     left to bisect; then the recommendation at Traffic× the traffic.
//     Seeds derive from each point's values, so results depend on nothing
//     but the configuration: not the jobs, the shards (Options.Shard,
//     Options.From) or interruptions (Options.Resume);
//   - Result holds the recommendation, what binds, the current
//     configuration and the nearest feasible change, the Pareto frontier
//     in (threads, wait p99, rejected share), and, when every point is a
//     core = max pool on Poisson traffic, the closed-form answer (ErlangB,
//     ErlangC, MMcWaitQuantile); WriteText, WriteJSON, WritePointsCSV,
//     FrontierPNG and WriteDir write it, and CheckFailure is tune --check's
//     verdict.
//
// The recommendation is the feasible point within the --vary ranges with
// the least objective; a point is feasible when its intervals decided
// every constraint and each holds on the means. A point the intervals do
// not decide within MaxReplications counts as failing.
package tune
