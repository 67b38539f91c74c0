package threaddump

import (
	"strconv"
	"strings"
)

// splitNumber splits a thread name into the prefix its pool's threads
// share and the worker's number (spec R62): "http-nio-8080-exec-12" gives
// "http-nio-8080-exec-" and 12. The generic rule takes the number at the
// end of the name; these real naming schemes are read as their factories
// write them (naming_test.go holds one row per scheme):
//
//   - "… pool 3/7" (IntelliJ's JobScheduler ForkJoinPool): worker 3 of 7;
//   - "…[T#3]" (Elasticsearch) and "…(3)…" closing brackets: the number
//     inside them;
//   - "… @coroutine#12" (kotlinx.coroutines' debug suffix): dropped;
//   - "(pid N)" (the JDK's process reaper) is a process id;
//   - a trailing IPv4 address, version or host:port ("RMI TCP
//     Connection(3)-10.0.0.1", "…-1.2.3", "OkHttp https://h:8443") is no
//     worker number: RMI's connection number inside the parentheses is.
//
// num is -1 when the number does not fit an int.
func splitNumber(name string) (prefix string, num int, ok bool) {
	name = dropCoroutineSuffix(name)
	if p, n, ok := splitOfTotal(name); ok {
		return p, n, true
	}
	if rest, ok := dropAddress(name); ok {
		// "RMI TCP Connection(3)-10.0.0.1": the connection number.
		rest = strings.TrimRight(rest, "-_ :@/")
		if strings.HasSuffix(rest, ")") {
			return splitTrailing(rest[:len(rest)-1])
		}
		return "", -1, false
	}
	if strings.HasSuffix(name, ")") {
		// "process reaper (pid 93601)": a process id, not a worker number.
		if open := strings.LastIndexByte(name, '('); open >= 0 && strings.HasPrefix(name[open+1:], "pid ") {
			return "", -1, false
		}
	}
	if strings.HasSuffix(name, "]") || strings.HasSuffix(name, ")") {
		return splitTrailing(name[:len(name)-1])
	}
	return splitTrailing(name)
}

// splitTrailing is the generic rule: the digits at the end of the name.
func splitTrailing(name string) (prefix string, num int, ok bool) {
	i := len(name)
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	if i == len(name) || i == 0 {
		return "", -1, false
	}
	n, err := strconv.Atoi(name[i:])
	if err != nil || n < 0 {
		n = -1
	}
	return name[:i], n, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// splitOfTotal reads "JobScheduler FJ pool 3/7": worker 3 of 7.
func splitOfTotal(name string) (string, int, bool) {
	slash := strings.LastIndexByte(name, '/')
	if slash <= 0 || slash == len(name)-1 || !allDigits(name[slash+1:]) || !isDigit(name[slash-1]) {
		return "", -1, false
	}
	p, n, ok := splitTrailing(name[:slash])
	if !ok || (p != "" && p[len(p)-1] != ' ' && p[len(p)-1] != '-') {
		return "", -1, false
	}
	return p, n, true
}

// dropCoroutineSuffix removes kotlinx.coroutines' debug-mode suffix
// (" @coroutine#12", " @my-job#3") that it appends to the carrier's name.
func dropCoroutineSuffix(name string) string {
	at := strings.LastIndex(name, " @")
	if at <= 0 {
		return name
	}
	hash := strings.LastIndexByte(name, '#')
	if hash < at || !allDigits(name[hash+1:]) {
		return name
	}
	return name[:at]
}

// dropAddress reports whether the name ends in an address or a version
// rather than a worker number — a dotted number ("10.0.0.1", "1.2.3"), or
// a port after a colon ("host:8443") — and returns the name without it.
func dropAddress(name string) (string, bool) {
	i := len(name)
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	if i == len(name) || i == 0 {
		return "", false
	}
	switch name[i-1] {
	case ':':
		return name[:i-1], true
	case '.':
		// Walk back over the dotted run; at least one more digit group.
		j := i - 1
		k := j
		for k > 0 && (isDigit(name[k-1]) || name[k-1] == '.') {
			k--
		}
		if k < j && isDigit(name[k]) {
			return name[:k], true
		}
	}
	return "", false
}
