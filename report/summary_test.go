package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// rowsFromJSON are the rows report.html showed before SummaryFromStruct:
// the summary written as summary.json, read back by SummaryFromJSON.
func rowsFromJSON(t *testing.T, v any) []report.KV {
	t.Helper()
	var b bytes.Buffer
	if err := sim.WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	kv, err := report.SummaryFromJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// stat encodes like sim.Stat, from its own MarshalJSON.
type stat float64

func (s stat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(s)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(s))
}

type item struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

// every holds each kind of field encoding/json treats specially.
type every struct {
	Name     string         `json:"name"`
	HTML     string         `json:"html"`       // escaped as \u003c in the file, unescaped in the row
	Tiny     float64        `json:"tiny"`       // 1e-07: encoding/json's exponent form
	Huge     float64        `json:"huge"`       // 1e+21
	Plain    float64        `json:"plain"`      // 0.1
	Undef    stat           `json:"undef"`      // null, by MarshalJSON
	Defined  stat           `json:"defined"`    // a number, by MarshalJSON
	Count    int64          `json:"count"`      // an integer
	Big      uint64         `json:"big"`        // beyond float64's exact integers
	Flag     bool           `json:"flag"`       // true/false as JSON
	Skipped  int            `json:"-"`          // never shown
	Dash     int            `json:"-,"`         // a key named "-"
	Untagged int            ``                  // keyed by its Go name
	NoName   int            `json:",omitempty"` // Go name, omitted when 0
	private  int            // unexported: never shown
	EmptyOK  []item         `json:"empty,omitempty"` // omitted when empty
	Items    []item         `json:"items"`           // compact JSON
	NilList  []int          `json:"nil_list"`        // null
	Zero     int            `json:"zero,omitzero"`   // omitted when zero
	Ptr      *int           `json:"ptr,omitempty"`   // omitted when nil
	Map      map[string]int `json:"map"`             // compact JSON
}

// TestSummaryFromStructMatchesJSON: for every kind of field, the rows built
// from the struct equal those read back from its JSON — so report.html is
// byte-identical to the page built from summary.json.
func TestSummaryFromStructMatchesJSON(t *testing.T) {
	seven := 7
	cases := []struct {
		name string
		v    any
	}{
		// Every field set, the omitted ones at their zero value.
		{"set", every{Name: "tomcat · «121»", HTML: `<a href="x">&amp;</a>`, Tiny: 1e-7, Huge: 1e21, Plain: 0.1,
			Undef: stat(math.NaN()), Defined: 2.5e-3, Count: -3, Big: math.MaxUint64, Flag: true, Skipped: 9, Dash: 4,
			Untagged: 5, Items: []item{{1, "x"}, {2, ""}}, Map: map[string]int{"b": 2, "a": 1}, private: 1}},
		// The omitempty/omitzero fields set, so they show.
		{"omitted fields set", &every{NoName: 1, EmptyOK: []item{{A: 3}}, Zero: 8, Ptr: &seven, NilList: []int{}}},
		// The zero value.
		{"zero", every{}},
		// A summary of no run at all: every statistic undefined.
		{"sim zero", sim.Summary{}},
		{"sim periodic", sim.Summary{Name: "p", WaitMean: sim.Stat(math.NaN()), Periodic: []sim.PeriodicSummary{{Name: "poller", Mode: "fixed-rate", Every: 0.25, MeanLate: sim.Stat(math.NaN())}}}},
	}
	for _, c := range cases {
		got, err := report.SummaryFromStruct(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := rowsFromJSON(t, c.v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %v\n want %v", c.name, got, want)
		}
	}
}

// TestSummaryFromStructBundled: the rows of every bundled scenario's
// sim.Summary equal those of its summary.json.
func TestSummaryFromStructBundled(t *testing.T) {
	files, err := filepath.Glob("../scenarios/examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Load(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(context.Background(), sc, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := report.SummaryFromStruct(&res.Summary)
			if err != nil {
				t.Fatal(err)
			}
			if want := rowsFromJSON(t, res.Summary); !reflect.DeepEqual(got, want) {
				t.Errorf("rows differ:\n got  %v\n want %v", got, want)
			}
		})
	}
}

// TestSummaryFromStructErrors: what it cannot list as summary.json would
// print it is an error, not wrong rows.
func TestSummaryFromStructErrors(t *testing.T) {
	type embedded struct{ item }
	type quoted struct {
		N int `json:"n,string"`
	}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"not a struct", 3, "want a struct, got int"},
		{"nil pointer", (*sim.Summary)(nil), "a nil pointer"},
		{"embedded", embedded{}, "embedded field item"},
		{"string option", quoted{}, `",string" option`},
	} {
		if _, err := report.SummaryFromStruct(c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
