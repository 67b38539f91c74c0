// Package workloads generates the traffic a pool is fed: arrival processes
// (poisson, constant, onoff, burst), service-time distributions (gonum's
// distuv), service laws split into a CPU part and a blocking part
// (ServiceSplit, reported beside each arrival through SplitSource),
// piecewise phases, task failures, and replay of recorded traces from CSV.
//
// It owns all randomness and knows nothing of the pool model: a Source
// yields Arrivals — a time, a service time already drawn, a priority and
// whether the task throws — in time order. Each purpose draws from its own
// stream derived from the scenario seed (arrivals, service times, failures,
// priorities), so changing the pool, or even the service law, never
// changes the arrival times: two configurations are compared on identical
// traffic.
package workloads
