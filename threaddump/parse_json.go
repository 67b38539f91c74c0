package threaddump

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// jsonNumber accepts a JSON number or a string holding one: JDK 21–25 print
// "tid": "12", later builds "tid": 12.
type jsonNumber string

func (n *jsonNumber) UnmarshalJSON(b []byte) error {
	*n = jsonNumber(strings.Trim(string(b), `"`))
	return nil
}

func (n jsonNumber) int64() int64 {
	v, _ := strconv.ParseInt(string(n), 10, 64)
	return v
}

// jsonBool accepts true, false or their quoted forms.
type jsonBool bool

func (b *jsonBool) UnmarshalJSON(v []byte) error {
	*b = strings.Trim(string(v), `"`) == "true"
	return nil
}

// jsonThread is one thread of Thread.dump_to_file -format=json. JDK 21–24
// print tid, name and stack only; JDK 25 adds time, virtual, state,
// parkBlocker, blockedOn, waitingOn, monitorsOwned and carrier.
type jsonThread struct {
	Tid         jsonNumber `json:"tid"`
	Name        string     `json:"name"`
	State       string     `json:"state"`
	Virtual     jsonBool   `json:"virtual"`
	Carrier     jsonNumber `json:"carrier"`
	ParkBlocker *struct {
		Object string `json:"object"`
	} `json:"parkBlocker"`
	BlockedOn     string   `json:"blockedOn"`
	WaitingOn     string   `json:"waitingOn"`
	Stack         []string `json:"stack"`
	MonitorsOwned []struct {
		Depth jsonNumber `json:"depth"`
		Locks []*string  `json:"locks"`
	} `json:"monitorsOwned"`
}

// jsonReader walks the document token by token, so that a truncated file
// still yields every thread before the cut.
type jsonReader struct {
	name  string
	text  string
	dec   *json.Decoder
	dump  *Dump
	lines []int // byte offset of each line start
	bad   int   // unparsable stack entries
}

func parseJSON(text, name string) (*Dump, error) {
	r := &jsonReader{name: name, text: text, dec: json.NewDecoder(strings.NewReader(text))}
	r.lines = append(r.lines, 0)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			r.lines = append(r.lines, i+1)
		}
	}
	r.dump = &Dump{Name: name, Form: FormJSON, Line: 1}
	err := r.document()
	d := r.dump
	if err != nil {
		// The fault is at the first token after the last one read.
		off := int(r.dec.InputOffset())
		for off < len(text) && strings.IndexByte(" \t\r\n,:", text[off]) >= 0 {
			off++
		}
		line, col := r.pos(off)
		if len(d.Threads) == 0 {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return nil, inputerr.New(name, line, col, "", "JSON thread dump ends before its first thread (truncated)", allowedInput)
			}
			return nil, &inputerr.Error{File: name, Line: line, Col: col, Msg: "not a thread dump: " + err.Error(), Allowed: allowedInput, Err: err}
		}
		d.Truncated = true
		d.Notes = append(d.Notes, fmt.Sprintf("the JSON document is cut at line %d: the %d threads before the cut are kept", line, len(d.Threads)))
	}
	if len(d.Threads) == 0 {
		return nil, inputerr.New(name, 1, 1, "", "JSON thread dump holds no thread", allowedInput)
	}
	finishDump(d)
	if r.bad > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d stack entries not understood and skipped", r.bad))
	}
	return d, nil
}

func (r *jsonReader) pos(off int) (line, col int) {
	off = min(max(off, 0), len(r.text))
	i := sort.Search(len(r.lines), func(i int) bool { return r.lines[i] > off }) - 1
	return i + 1, off - r.lines[i] + 1
}

func (r *jsonReader) delim(want json.Delim) error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("JSON %q expected, found %v", string(want), tok)
	}
	return nil
}

// object calls field for each key of the object that starts next.
func (r *jsonReader) object(field func(key string) error) error {
	if err := r.delim('{'); err != nil {
		return err
	}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("JSON object key expected, found %v", tok)
		}
		if err := field(key); err != nil {
			return err
		}
	}
	return r.delim('}')
}

func (r *jsonReader) skip() error {
	var v json.RawMessage
	return r.dec.Decode(&v)
}

func (r *jsonReader) document() error {
	found := false
	err := r.object(func(key string) error {
		if key != "threadDump" {
			return r.skip()
		}
		found = true
		return r.threadDump()
	})
	if err == nil && !found {
		return errors.New(`JSON without a "threadDump" object`)
	}
	return err
}

func (r *jsonReader) threadDump() error {
	d := r.dump
	return r.object(func(key string) error {
		switch key {
		case "processId":
			var n jsonNumber
			if err := r.dec.Decode(&n); err != nil {
				return err
			}
			d.PID = n.int64()
		case "time":
			return r.dec.Decode(&d.Time)
		case "runtimeVersion":
			return r.dec.Decode(&d.VM)
		case "threadContainers":
			if err := r.delim('['); err != nil {
				return err
			}
			for r.dec.More() {
				if err := r.container(); err != nil {
					return err
				}
			}
			return r.delim(']')
		default:
			return r.skip()
		}
		return nil
	})
}

func (r *jsonReader) container() error {
	name := ""
	return r.object(func(key string) error {
		switch key {
		case "container":
			var v *string
			if err := r.dec.Decode(&v); err != nil {
				return err
			}
			if v != nil {
				name = *v
			}
			return nil
		case "threads":
			if err := r.delim('['); err != nil {
				return err
			}
			for r.dec.More() {
				off := int(r.dec.InputOffset())
				var jt jsonThread
				if err := r.dec.Decode(&jt); err != nil {
					return err
				}
				r.addThread(jt, name, off)
			}
			return r.delim(']')
		default:
			return r.skip()
		}
	})
}

func (r *jsonReader) addThread(jt jsonThread, container string, off int) {
	// The thread's '{' follows the offset after white space and a comma.
	for off < len(r.text) && strings.IndexByte(" \t\r\n,", r.text[off]) >= 0 {
		off++
	}
	line, _ := r.pos(off)
	t := Thread{
		Name:      jt.Name,
		Line:      line,
		Number:    jt.Tid.int64(),
		Virtual:   bool(jt.Virtual),
		Carrier:   jt.Carrier.int64(),
		Container: container,
	}
	if isState(jt.State) {
		t.State = jt.State
	}
	for _, s := range jt.Stack {
		if f, ok := parseFrame(s); ok {
			t.Frames = append(t.Frames, f)
		} else {
			r.bad++
		}
	}
	if jt.ParkBlocker != nil && jt.ParkBlocker.Object != "" {
		class, hash := splitIdentity(jt.ParkBlocker.Object)
		t.ParkBlocker = class
		addLock(&t, 0, Lock{Verb: "parking to wait for", Address: hash, Class: class})
	}
	if jt.BlockedOn != "" {
		class, hash := splitIdentity(jt.BlockedOn)
		addLock(&t, 0, Lock{Verb: "waiting to lock", Address: hash, Class: class})
	}
	if jt.WaitingOn != "" {
		class, hash := splitIdentity(jt.WaitingOn)
		addLock(&t, 0, Lock{Verb: "waiting on", Address: hash, Class: class})
	}
	for _, m := range jt.MonitorsOwned {
		depth := int(m.Depth.int64())
		for _, l := range m.Locks {
			lock := Lock{Verb: "eliminated"}
			if l != nil {
				class, hash := splitIdentity(*l)
				lock = Lock{Verb: "locked", Address: hash, Class: class}
			}
			addLock(&t, depth, lock)
		}
	}
	r.dump.Threads = append(r.dump.Threads, t)
}

// addLock attaches l to frame depth, when the thread has that frame.
func addLock(t *Thread, depth int, l Lock) {
	if depth >= 0 && depth < len(t.Frames) {
		t.Frames[depth].Locks = append(t.Frames[depth].Locks, l)
	}
}
