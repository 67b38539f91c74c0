package threaddump

import "strings"

// parseStateLine reads "java.lang.Thread.State: TIMED_WAITING (parking)".
func parseStateLine(s string) (state, detail string) {
	rest := strings.TrimSpace(strings.TrimPrefix(s, "java.lang.Thread.State:"))
	if i := strings.IndexByte(rest, '('); i >= 0 {
		detail = strings.TrimSuffix(strings.TrimSpace(rest[i+1:]), ")")
		rest = rest[:i]
	}
	// VisualVM and IntelliJ IDEA: "WAITING on java.util.TaskQueue@7311acb7".
	if f := strings.Fields(rest); len(f) > 1 && isState(f[0]) {
		return f[0], strings.TrimSpace(strings.Join(f[1:], " ") + " " + detail)
	}
	return strings.TrimSpace(rest), detail
}

func isState(s string) bool {
	switch s {
	case StateNew, StateRunnable, StateBlocked, StateWaiting, StateTimedWaiting, StateTerminated:
		return true
	}
	return false
}

// isTimestamp matches the line jstack prints first ("2026-12-01 20:00:08")
// and Thread.dump_to_file's ISO instant ("2026-12-01T20:00:31.308661674Z").
func isTimestamp(s string) bool {
	if len(s) < 19 || len(s) > 40 {
		return false
	}
	for i, c := range s[:19] {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != ' ' && c != 'T' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return len(s) == 19 || s[10] == 'T'
}

// isPIDLine matches jcmd's "12345:" and Thread.dump_to_file's "12345".
func isPIDLine(s string) bool {
	s = strings.TrimSuffix(s, ":")
	return len(s) > 0 && len(s) <= 10 && allDigits(s)
}

// isVersion matches Runtime.version() output: "25.0.3+9-LTS", "21.0.2+13".
func isVersion(s string) bool {
	return len(s) > 0 && len(s) < 64 && s[0] >= '1' && s[0] <= '9' && !strings.ContainsAny(s, " \t")
}
