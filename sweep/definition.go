package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
)

// Format names the layout of a sweep directory and its files.
const Format = "poolsim-sweep/1"

// Definition is everything that decides a sweep's results: a sweep run
// twice from the same Definition writes the same bytes. It is stored in
// the sweep directory's manifest.json, checked on --resume and by merge,
// and heads sweep.json.
type Definition struct {
	Format         string     `json:"format"`
	Version        string     `json:"poolsim_version"`
	Scenario       string     `json:"scenario"`        // the scenario's name
	ScenarioSHA256 string     `json:"scenario_sha256"` // of the scenario text with --set applied
	Sets           []string   `json:"sets"`            // fixed --set overrides, in order
	BaseSeed       uint64     `json:"base_seed"`       // the scenario's seed (after --set/--seed)
	Params         []ParamDef `json:"params"`
	// Design, when set, lists the points instead of the grid: point i
	// takes value Design[i][k] of parameter k (see NewDesign).
	Design [][]int `json:"design,omitempty"`
	Points int     `json:"points"`
	// Replications per point; with Precision, the first replications of
	// each point before the precision rule is checked.
	Replications    int     `json:"replications"`
	Precision       float64 `json:"precision,omitempty"`        // target relative 95% half-width
	PrecisionMetric string  `json:"precision_metric,omitempty"` // the metric it applies to
	MaxReplications int     `json:"max_replications,omitempty"` // cap of the precision or decide loop
	// Decide, when set, adds replications to each point until the 95%
	// intervals decide every one of these gate expressions (Gate.Decided).
	Decide     []string `json:"decide,omitempty"`
	Confidence float64  `json:"confidence"`
	Metrics    []string `json:"metrics"`
	Notes      []string `json:"notes"`
}

// ParamDef is a Param as stored.
type ParamDef struct {
	Key    string  `json:"key"`
	Spec   string  `json:"spec"`
	Kind   string  `json:"kind"`
	Values []Value `json:"values"`
}

// MarshalJSON writes a Value as {"text": ..., "canon": ...}.
func (v Value) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Text  string `json:"text"`
		Canon string `json:"canon"`
	}{v.Text, v.Canon})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Value) UnmarshalJSON(b []byte) error {
	var s struct {
		Text  string `json:"text"`
		Canon string `json:"canon"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v.Text, v.Canon = s.Text, s.Canon
	return nil
}

// ID is a digest of the definition: point files carry it, so that files of
// another sweep are never mixed in.
func (d *Definition) ID() string {
	b, err := json.Marshal(d)
	if err != nil {
		panic("sweep: definition does not encode: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Grid rebuilds the definition's grid.
func (d *Definition) Grid() (*Grid, error) {
	ps := make([]Param, len(d.Params))
	for i, pd := range d.Params {
		k, ok := parseKind(pd.Kind)
		if !ok {
			return nil, fmt.Errorf("sweep: parameter %s: unknown kind %q", pd.Key, pd.Kind)
		}
		ps[i] = Param{Key: pd.Key, Spec: pd.Spec, Kind: k, Values: pd.Values}
	}
	g, err := NewDesign(ps, d.Design)
	if err != nil {
		return nil, err
	}
	if g.Len() != d.Points {
		return nil, fmt.Errorf("sweep: definition says %d points, its parameters make %d", d.Points, g.Len())
	}
	return g, nil
}

// manifest is manifest.json: the definition, its ID, and which shard of it
// the directory holds.
type manifest struct {
	Format     string     `json:"format"`
	ID         string     `json:"id"`
	Shard      string     `json:"shard,omitempty"`
	Definition Definition `json:"definition"`
}

const manifestName = "manifest.json"

func writeManifest(dir string, d *Definition, sh Shard) error {
	m := manifest{Format: Format, ID: d.ID(), Shard: sh.String(), Definition: *d}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("sweep: writing the manifest: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, manifestName), append(b, '\n')); err != nil {
		return fmt.Errorf("sweep: writing the manifest: %w", err)
	}
	return nil
}

// readManifest reads dir's manifest.json; ok is false when there is none.
func readManifest(dir string) (m manifest, ok bool, err error) {
	path := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("sweep: reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, false, inputerr.New(path, 0, 0, "", fmt.Sprintf("not a sweep manifest: %v", err), "the manifest.json poolsim sweep writes")
	}
	if m.Format != Format {
		return m, false, inputerr.New(path, 0, 0, "format", fmt.Sprintf("unknown format %q", m.Format), Format)
	}
	if m.ID != m.Definition.ID() {
		return m, false, inputerr.New(path, 0, 0, "id", "the manifest was edited (its id does not match its definition)", "the manifest.json poolsim sweep writes")
	}
	return m, true, nil
}

// diff names the first field where two definitions differ, with both
// values, for "this is not the same sweep" messages.
func (d *Definition) diff(o *Definition) string {
	type f struct {
		name string
		a, b any
	}
	for _, c := range []f{
		{"poolsim version", d.Version, o.Version},
		{"scenario", d.Scenario, o.Scenario},
		{"scenario text (sha256)", d.ScenarioSHA256, o.ScenarioSHA256},
		{"--set", d.Sets, o.Sets},
		{"seed", d.BaseSeed, o.BaseSeed},
		{"--param", paramSpecs(d.Params), paramSpecs(o.Params)},
		{"--replications", d.Replications, o.Replications},
		{"--precision", d.Precision, o.Precision},
		{"--metric", d.PrecisionMetric, o.PrecisionMetric},
		{"--max-replications", d.MaxReplications, o.MaxReplications},
		{"decide", d.Decide, o.Decide},
		{"design", len(d.Design), len(o.Design)},
		{"metrics", d.Metrics, o.Metrics},
	} {
		if fmt.Sprint(c.a) != fmt.Sprint(c.b) {
			return fmt.Sprintf("%s: %v here, %v there", c.name, c.a, c.b)
		}
	}
	if d.ID() != o.ID() {
		return "the parameter values"
	}
	return ""
}

func paramSpecs(ps []ParamDef) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Key + "=" + p.Spec
	}
	return out
}

// adaptive reports whether points choose their number of replications
// (a precision target or a decide rule), so that rows say whether the
// rule was met.
func (d *Definition) adaptive() bool { return d.Precision > 0 || len(d.Decide) > 0 }

// reachedKey names the column and JSON key that says whether a point met
// its stopping rule: precision_reached, decided, or "" for none.
func (d *Definition) reachedKey() string {
	switch {
	case d.Precision > 0:
		return "precision_reached"
	case len(d.Decide) > 0:
		return "decided"
	}
	return ""
}
