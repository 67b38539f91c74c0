// Package sweep runs a scenario over a grid of parameter values, with
// independent replications per point, and reports each metric's mean and
// 95% confidence half-width (poolsim sweep, poolsim merge; issue 5).
//
// A sweep is built in steps, each usable alone:
//
//   - ParseParam reads one --param KEY=VALUES (a list, a linear range
//     A:B:N, a log range A:B:N:log; units kept) into a Param;
//   - NewGrid crosses the parameters (NewDesign lists points instead, for
//     searches; Param.Midpoint bisects two values): point i of the grid, in grid order
//     (first parameter slowest), gives --set overrides (Grid.Sets) and a
//     canonical key (Grid.Key) from which its seeds derive (PointSeed,
//     ReplicationSeed) — never from --jobs, the shard or the order points
//     run in, so a point gives the same numbers however a sweep is split;
//   - New checks a Config and prepares a Sweep; Sweep.Run runs the points
//     of a Shard with Jobs simulations at a time (the only goroutines in
//     poolsim: runs are independent), writing each finished point
//     atomically to DIR/points/ and, at the end, DIR/sweep.csv and
//     DIR/sweep.json assembled from those files in grid order; with
//     Resume it skips finished points; cancelled, it keeps what finished;
//   - Merge combines shard directories into exactly the directory the
//     unsharded sweep writes, byte for byte;
//   - CompileGate, Evaluate, FailureReport and WriteJUnit check --assert
//     expressions (expr-lang) at every point, for CI; Gate.Decided says
//     whether the confidence intervals decide a gate, and CompileExpr
//     compiles the same language as a cost;
//   - Plots draws a metric over one or two swept parameters (package
//     plots).
//
// Statistics: replications of a point are independent runs with seeds
// ReplicationSeed(PointSeed(base, key), r). For each metric the point
// reports the mean and the half-width t(0.975, n−1)·s/√n of the Student-t
// 95% confidence interval (MeanHalfWidth); with one replication there is
// no interval (null, an empty CSV cell), never 0. A metric undefined in a
// replication (no task in the steady state) is undefined for the point.
// With a precision target, a point adds replications until the chosen
// metric's half-width relative to its mean is below the target, checking
// after each replication in order from the first batch on, up to a cap;
// the rows say how many replications each point used and whether the
// target was reached. With Decide gates instead (poolsim tune's
// constraints), a point adds replications until the intervals decide every
// gate (Gate.Decided), checked the same way.
package sweep
