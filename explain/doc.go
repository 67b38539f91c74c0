// Package explain answers "why does my pool look like this?" from a
// simulation: the steady-state pool size and its spread, why idle workers
// are TIMED_WAITING or WAITING, the hand-off mechanism that decides which
// idle workers live and the equilibrium it implies (compared with the
// simulated figure), how the pool grew, why tasks were rejected, and
// what-ifs that matter for the configuration, each re-simulated on the same
// traffic. It also infers, by simulation, the load that explains an
// observed pool (Diagnose).
package explain
