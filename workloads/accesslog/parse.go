package accesslog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// DUnit is the unit of %D, which changed between Tomcat versions. There is
// no default: a wrong guess scales every service time by 1000.
type DUnit int

const (
	// DUnset means the caller did not say; a pattern whose only duration
	// is %D is then refused.
	DUnset DUnit = iota
	// DMicros: Tomcat 10.0 and later (AbstractAccessLogValve writes
	// microseconds, as does Spring Boot 3 with its embedded Tomcat 10.1).
	DMicros
	// DMillis: Tomcat 9 and older (and Spring Boot 2).
	DMillis
)

// String names the unit.
func (u DUnit) String() string {
	switch u {
	case DMicros:
		return "us"
	case DMillis:
		return "ms"
	}
	return "unset"
}

// ParseDUnit reads "us" / "µs" / "micros" / "tomcat10" (and later
// versions) or "ms" / "millis" / "tomcat9" (and earlier).
func ParseDUnit(s string) (DUnit, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "us", "µs", "micros", "microseconds", "tomcat10", "tomcat11", "tomcat12":
		return DMicros, nil
	case "ms", "millis", "milliseconds", "tomcat9", "tomcat8", "tomcat8.5", "tomcat7":
		return DMillis, nil
	}
	return DUnset, fmt.Errorf("accesslog: %q is not a %%D unit: use us (Tomcat 10 and later) or ms (Tomcat 9 and earlier)", s)
}

// Options describe the log.
type Options struct {
	// Pattern is the AccessLogValve pattern the log was written with, or
	// "common" / "combined".
	Pattern string
	// DurationUnit is the unit of %D; required when %D is the pattern's
	// only duration field.
	DurationUnit DUnit
	// Location is the zone of %{format}t timestamps that print no zone
	// (SimpleDateFormat uses the JVM's default zone). nil means UTC. It
	// only matters across a daylight-saving change.
	Location *time.Location
	// MaxBadFraction is the share of non-blank lines that may fail to
	// match before the parse fails: 0 tolerates none, 1 any number.
	MaxBadFraction float64
	// MaxBadExamples is how many bad lines Stats keeps; 0 means 5.
	MaxBadExamples int
	// UseCommitTime lets %F (time to commit the response, in
	// milliseconds) stand for the service time when the pattern has no
	// duration field. It is shorter than the real duration, and the
	// pattern must then log the begin time (%{begin:…}t).
	UseCommitTime bool
	// MaxLineBytes bounds a line; longer lines are bad lines. 0 means 1 MiB.
	MaxLineBytes int
}

// Record is one logged request.
type Record struct {
	// Arrival is when the request started, relative to the start of the
	// first request in the file (file order, so it can be negative); Sorted
	// re-bases it on the earliest request.
	Arrival time.Duration
	// Service is how long the request took, as the log says.
	Service time.Duration
	// Line is the line number in the log, from 1.
	Line int
}

// Stats counts lines. Lines = Parsed + Bad + Blank.
type Stats struct {
	Lines, Parsed, Bad, Blank int
	// BadExamples are the first bad lines, with line, column and field.
	BadExamples []inputerr.Error
	// Inconsistent counts lines whose %D disagreed with %T (see Parse).
	Inconsistent int
}

// Resolution is the coarsest step of the times a Parser reads.
type Resolution struct {
	Service time.Duration // 1µs for %D in Tomcat 10, 1s for %T, ...
	Arrival time.Duration // 1s for %t, 1ms for %{msec}t, ...
}

// Parser reads an access log line by line.
type Parser struct {
	name  string
	opt   Options
	elems []element
	in    *bufio.Reader

	durIdx    int // element giving the service time
	checkIdx  int // a second duration to cross-check %D's unit, or -1
	timeIdx   []int
	res       Resolution
	originSet bool
	origin    time.Time
	zones     zoneCache

	line  int
	stats Stats
	err   error
	done  bool

	// scratch for the line being matched
	vals   []string
	steps  int // work spent on the current line
	budget int // work allowed for the current line
	buf    []byte
	longLn bool
}

// Parse starts reading an access log from r (named name in messages). It
// fails when the pattern cannot give both a service time and an arrival
// time.
func Parse(r io.Reader, name string, opt Options) (*Parser, error) {
	if !(opt.MaxBadFraction >= 0 && opt.MaxBadFraction <= 1) {
		return nil, fmt.Errorf("accesslog: MaxBadFraction %v: want 0 to 1", opt.MaxBadFraction)
	}
	elems, err := compilePattern(opt.Pattern)
	if err != nil {
		return nil, &inputerr.Error{File: name, Key: "pattern", Msg: err.Error(), Allowed: "an AccessLogValve pattern (Tomcat docs config/valve.xml)"}
	}
	p := &Parser{name: name, opt: opt, elems: elems, durIdx: -1, checkIdx: -1, zones: zoneCache{}}
	if p.opt.MaxBadExamples == 0 {
		p.opt.MaxBadExamples = 5
	}
	if p.opt.MaxLineBytes <= 0 {
		p.opt.MaxLineBytes = 1 << 20
	}
	if p.opt.Location == nil {
		p.opt.Location = time.UTC
	}
	if err := p.plan(); err != nil {
		return nil, err
	}
	for i := range elems {
		// Two fields may touch only when the first ends by its own syntax
		// ([CLF]) or the second is %q, which starts with '?' (as in %U%q).
		if i > 0 && elems[i].kind != kLiteral && elems[i-1].kind != kLiteral && !selfDelimiting(elems[i-1]) &&
			!(elems[i].kind == kQuery && elems[i-1].kind != kQuery && (i+1 == len(elems) || elems[i+1].kind == kLiteral)) {
			return nil, &inputerr.Error{File: name, Key: "pattern",
				Msg:     fmt.Sprintf("%s and %s follow each other with no text between them: their values cannot be told apart", elems[i-1].code, elems[i].code),
				Allowed: "a pattern with a separator (such as a space) between fields"}
		}
	}
	p.vals = make([]string, len(elems))
	p.in = bufio.NewReaderSize(r, 64<<10)
	return p, nil
}

// selfDelimiting fields end by their own syntax.
func selfDelimiting(e element) bool { return e.kind == kTime && e.tt == ttCLF }

// durRank orders duration fields from finest to coarsest resolution.
func (p *Parser) durRank(e element) (int, time.Duration) {
	switch e.dur {
	case duNanos:
		return 0, time.Nanosecond
	case duMicros:
		return 1, time.Microsecond
	case duD:
		if p.opt.DurationUnit == DMicros {
			return 1, time.Microsecond
		}
		return 2, time.Millisecond
	case duMillis:
		return 2, time.Millisecond
	case duFracSec:
		return 3, time.Millisecond
	}
	return 4, time.Second
}

// plan picks the duration and timestamp fields.
func (p *Parser) plan() error {
	hasD := false
	for i, e := range p.elems {
		switch e.kind {
		case kDuration:
			if e.dur == duD {
				hasD = true
				if p.opt.DurationUnit == DUnset {
					continue
				}
			}
			if p.durIdx < 0 {
				p.durIdx = i
				continue
			}
			r, _ := p.durRank(e)
			if best, _ := p.durRank(p.elems[p.durIdx]); r < best {
				p.durIdx = i
			}
		case kTime:
			if e.tt == ttCLF || e.tt == ttSec || e.tt == ttMsec || (e.tt == ttSDF && e.sdf.hasDate) {
				p.timeIdx = append(p.timeIdx, i)
			}
		}
	}
	if p.durIdx < 0 && hasD {
		return &inputerr.Error{File: p.name, Key: "%D",
			Msg:     "the unit of %D depends on the Tomcat version (microseconds since Tomcat 10.0, milliseconds in Tomcat 9 and older): say which",
			Allowed: "--d-unit us (Tomcat 10 and later) or ms (Tomcat 9 and older), durationUnit: us|ms in a scenario, or a pattern with %{us}T / %{ms}T"}
	}
	if p.durIdx < 0 && p.opt.UseCommitTime {
		for i, e := range p.elems {
			if e.kind == kCommit {
				p.durIdx = i
				break
			}
		}
	}
	if p.durIdx < 0 {
		return &inputerr.Error{File: p.name, Key: "pattern",
			Msg:     fmt.Sprintf("%q logs no request duration, so the log cannot give service times", p.opt.Pattern),
			Allowed: "a pattern with %D, %T or %{ns|us|ms|fracsec}T: the common and combined patterns cannot be replayed"}
	}
	if p.elems[p.durIdx].kind == kCommit {
		p.res.Service = time.Millisecond
		begin := false
		for _, e := range p.elems {
			begin = begin || (e.kind == kTime && e.begin && e.tt != ttMsecFrac && (e.tt != ttSDF || e.sdf.hasDate))
		}
		if !begin {
			return &inputerr.Error{File: p.name, Key: "%F",
				Msg:     "with %F (time to commit) as the service time, arrivals must come from a begin timestamp: the end time minus %F is not when the request started",
				Allowed: "a %{begin:…}t field, or a pattern with %D/%T"}
		}
	} else {
		_, p.res.Service = p.durRank(p.elems[p.durIdx])
	}
	// Cross-check %D's unit against another duration field of the same
	// request: Tomcat writes both from one elapsed time.
	if p.opt.DurationUnit != DUnset {
		for i, e := range p.elems {
			if e.kind == kDuration && i != p.durIdx && (e.dur == duD) != (p.elems[p.durIdx].dur == duD) {
				p.checkIdx = i
				break
			}
		}
	}
	if len(p.timeIdx) == 0 {
		return &inputerr.Error{File: p.name, Key: "pattern",
			Msg:     fmt.Sprintf("%q logs no date and time, so the log cannot give arrival times", p.opt.Pattern),
			Allowed: "a pattern with %t, or %{format}t with a date (year, month, day), sec or msec"}
	}
	p.res.Arrival = time.Second
	for _, i := range p.timeIdx {
		e := p.elems[i]
		if e.tt == ttMsec || (e.tt == ttSDF && e.sdf.hasMilli) {
			p.res.Arrival = time.Millisecond
		}
		if e.tt == ttSec || e.tt == ttCLF {
			for _, e2 := range p.elems {
				if e2.kind == kTime && e2.tt == ttMsecFrac && e2.begin == e.begin {
					p.res.Arrival = time.Millisecond
				}
			}
		}
	}
	return nil
}

// Resolution returns the resolution of the times this parser reads.
func (p *Parser) Resolution() Resolution { return p.res }

// Origin returns the absolute start of the first request in the file, the
// zero of Record.Arrival; zero before the first record.
func (p *Parser) Origin() time.Time { return p.origin }

// Stats returns the line counts so far.
func (p *Parser) Stats() Stats { return p.stats }

// Err returns the error that stopped the parse, or nil.
func (p *Parser) Err() error { return p.err }

// Next returns the next record in file order; false at the end or on an
// error (see Err).
func (p *Parser) Next() (Record, bool) {
	for !p.done {
		line, ok := p.readLine()
		if !ok {
			p.finish()
			return Record{}, false
		}
		p.line++
		p.stats.Lines++
		if p.longLn {
			p.bad(&inputerr.Error{File: p.name, Line: p.line, Msg: fmt.Sprintf("line longer than %d bytes", p.opt.MaxLineBytes)})
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			p.stats.Blank++
			continue
		}
		rec, ie := p.parseLine(string(line))
		if ie != nil {
			if ie.Key == "DurationUnit" {
				p.err = ie
				p.done = true
				return Record{}, false
			}
			p.bad(ie)
			if p.stats.Parsed == 0 && p.stats.Bad >= earlyAbort && p.opt.MaxBadFraction < 1 {
				p.err = &inputerr.Error{File: p.name, Line: p.line, Key: "pattern",
					Msg:     fmt.Sprintf("none of the first %d lines matches the pattern %q; the first: %s", earlyAbort, p.opt.Pattern, &p.stats.BadExamples[0]),
					Allowed: "the pattern the log was written with"}
				p.done = true
				return Record{}, false
			}
			continue
		}
		p.stats.Parsed++
		return rec, true
	}
	return Record{}, false
}

// earlyAbort: a log whose first lines all fail is read with the wrong
// pattern; reading the rest of a day of logs would only waste time.
const earlyAbort = 1000

// bad counts a bad line and keeps it as an example while there is room.
func (p *Parser) bad(ie *inputerr.Error) {
	p.stats.Bad++
	if len(p.stats.BadExamples) < p.opt.MaxBadExamples {
		p.stats.BadExamples = append(p.stats.BadExamples, *ie)
	}
}

// finish checks the bad-line budget at the end of the input.
func (p *Parser) finish() {
	p.done = true
	if p.err != nil {
		return
	}
	nonBlank := p.stats.Lines - p.stats.Blank
	if p.stats.Bad == 0 || nonBlank == 0 {
		return
	}
	frac := float64(p.stats.Bad) / float64(nonBlank)
	if frac > p.opt.MaxBadFraction {
		first := p.stats.BadExamples[0]
		p.err = &inputerr.Error{File: p.name, Line: first.Line, Col: first.Col, Key: first.Key,
			Msg: fmt.Sprintf("%d of %d lines (%.3g%%) do not match the pattern, more than MaxBadFraction %.3g%%; the first: %s",
				p.stats.Bad, nonBlank, 100*frac, 100*p.opt.MaxBadFraction, first.Msg),
			Allowed: "raise MaxBadFraction, or fix the pattern"}
	}
}

// readLine returns the next line without its end; lines longer than
// MaxLineBytes are consumed and flagged.
func (p *Parser) readLine() ([]byte, bool) {
	p.buf = p.buf[:0]
	p.longLn = false
	for {
		chunk, err := p.in.ReadSlice('\n')
		if len(p.buf)+len(chunk) > p.opt.MaxLineBytes {
			p.longLn = true
		} else {
			p.buf = append(p.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			p.err = &inputerr.Error{File: p.name, Msg: fmt.Sprintf("cannot read the log: %v", unwrapPath(err)), Err: err}
			return nil, false
		}
		if err == io.EOF && len(p.buf) == 0 && !p.longLn {
			return nil, false
		}
		b := bytes.TrimSuffix(p.buf, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		return b, true
	}
}

// record builds the Record of a matched line from p.vals.
func (p *Parser) record(line string) (Record, *inputerr.Error) {
	de := p.elems[p.durIdx]
	dv := p.vals[p.durIdx]
	if de.kind == kCommit && dv == "-" {
		return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: de.code, Msg: "no commit time (-): the response was never committed"}
	}
	var service time.Duration
	var err error
	if de.kind == kCommit {
		n, perr := strconv.ParseInt(dv, 10, 64)
		if perr != nil || n > math.MaxInt64/int64(time.Millisecond) {
			return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: de.code, Msg: "commit time out of range"}
		}
		service = time.Duration(n) * time.Millisecond
	} else if service, err = parseDuration(de, dv, p.opt.DurationUnit); err != nil {
		return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: de.code, Msg: err.Error()}
	}
	if p.checkIdx >= 0 {
		ce := p.elems[p.checkIdx]
		if !p.consistent(service, p.res.Service, ce, p.vals[p.checkIdx]) {
			p.stats.Inconsistent++
			return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: "DurationUnit",
				Msg: fmt.Sprintf("%s=%s and %s=%s disagree: with %%D in %s they cannot come from one request; the %%D unit (--d-unit) is wrong",
					de.code, dv, ce.code, p.vals[p.checkIdx], p.opt.DurationUnit),
				Allowed: "--d-unit us for Tomcat 10 and later, ms for Tomcat 9 and older"}
		}
	}

	var begin, end time.Time
	var beginRes, endRes time.Duration
	var beginFrac, endFrac = -1, -1
	for i, e := range p.elems {
		if e.kind == kTime && e.tt == ttMsecFrac {
			n, _ := strconv.Atoi(p.vals[i])
			if e.begin {
				beginFrac = n
			} else {
				endFrac = n
			}
		}
	}
	for _, i := range p.timeIdx {
		e := p.elems[i]
		t, err := p.parseTime(e, p.vals[i])
		if err != nil {
			return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: e.code, Msg: err.Error()}
		}
		res := time.Second
		if e.tt == ttMsec || (e.tt == ttSDF && e.sdf.hasMilli) {
			res = time.Millisecond
		}
		frac := endFrac
		if e.begin {
			frac = beginFrac
		}
		if res == time.Second && frac >= 0 && t.Nanosecond() == 0 {
			t = t.Add(time.Duration(frac) * time.Millisecond)
			res = time.Millisecond
		}
		if e.begin {
			if begin.IsZero() || res < beginRes {
				begin, beginRes = t, res
			}
		} else if end.IsZero() || res < endRes {
			end, endRes = t, res
		}
	}
	var arrival time.Time
	switch {
	case !begin.IsZero() && (end.IsZero() || beginRes <= endRes):
		arrival = begin
	default:
		arrival = end.Add(-service)
	}
	if !p.originSet {
		p.origin, p.originSet = arrival, true
	}
	rel := arrival.Sub(p.origin)
	if rel > maxSpan || rel < -maxSpan {
		return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: p.elems[p.timeIdx[0]].code, Msg: "arrival more than 50 years away from the first line's"}
	}
	if service > maxSpan {
		return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: de.code, Msg: "a request of more than 50 years"}
	}
	return Record{Arrival: rel, Service: service, Line: p.line}, nil
}

// maxSpan bounds arrivals (from the first line's) and service times, so
// that no sum or difference of them can overflow a time.Duration (about
// 292 years): beyond it a line is garbage, and counted as bad.
const maxSpan = 50 * 365 * 24 * time.Hour

// consistent reports whether service (read from the chosen field, whose
// step is res) and the text other of field ce can come from one elapsed
// time: Tomcat writes every duration field from the same nanoseconds,
// truncated to the field's unit, so the true time lies in [value,
// value+step) for both.
func (p *Parser) consistent(service, res time.Duration, ce element, other string) bool {
	o, err := parseDuration(ce, other, p.opt.DurationUnit)
	if err != nil {
		return true // the field itself is checked elsewhere
	}
	_, step := p.durRank(ce)
	if strings.Contains(other, ".") {
		step = time.Millisecond // seconds.millis
	}
	return service < o+step && o < service+res
}

// unwrapPath drops the path an *os.PathError repeats: messages name the
// file once.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
