package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/sim"
)

// A sweep directory holds
//
//	manifest.json     the Definition, its ID, and the shard
//	points/NNNNNNN.json one file per finished point, written atomically
//	sweep.csv, sweep.json  assembled from the point files, in grid order
//
// A point file exists only when the point is finished; it holds every
// replication's metrics, so the outputs can be rebuilt from the point
// files alone (merge does that).
const pointsDir = "points"

// rep is one replication's result.
type rep struct {
	Seed     uint64
	Complete bool // false: the run stopped early (limits.maxQueued)
	Values   []float64
}

// pointRecord is a finished point: its replications in order.
type pointRecord struct {
	Point int
	Reps  []rep
	// Reached: the precision rule held (only with a precision target).
	Reached bool
}

func pointPath(dir string, i int) string {
	return filepath.Join(dir, pointsDir, fmt.Sprintf("%07d.json", i))
}

// encodePoint writes a point file's bytes. NaN metrics are null.
func encodePoint(id string, g *Grid, reachedKey string, rec *pointRecord) []byte {
	var b bytes.Buffer
	b.WriteString(`{"sweep":`)
	writeJSONString(&b, id)
	fmt.Fprintf(&b, `,"point":%d,"params":[`, rec.Point)
	for k, v := range g.Values(rec.Point) {
		if k > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, v.Text)
	}
	b.WriteByte(']')
	if reachedKey != "" {
		fmt.Fprintf(&b, `,%q:%t`, reachedKey, rec.Reached)
	}
	b.WriteString(`,"replications":[`)
	for r, rp := range rec.Reps {
		if r > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"seed":%d,"complete":%t,"values":[`, rp.Seed, rp.Complete)
		for j, x := range rp.Values {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonNumber(x))
		}
		b.WriteString("]}")
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// jsonNumber formats x as a JSON number in the one float format of every
// output (sim.FormatFloat: the shortest decimal that reads back to the same
// float64), or null for NaN and infinities.
func jsonNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	if x == 0 {
		return "0" // not -0
	}
	return sim.FormatFloat(x)
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// nullableFloat reads a JSON number or null (NaN).
type nullableFloat float64

func (f *nullableFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nullableFloat(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = nullableFloat(x)
	return nil
}

type pointFile struct {
	Sweep        string   `json:"sweep"`
	Point        int      `json:"point"`
	Params       []string `json:"params"`
	Reached      *bool    `json:"precision_reached"`
	Decided      *bool    `json:"decided"`
	Replications []struct {
		Seed     uint64          `json:"seed"`
		Complete bool            `json:"complete"`
		Values   []nullableFloat `json:"values"`
	} `json:"replications"`
}

// errBadPoint marks a point file that is unreadable, torn or of another
// sweep.
var errBadPoint = errors.New("not a finished point of this sweep")

// decodePoint reads a point file and checks it belongs to this sweep and
// point.
func decodePoint(data []byte, d *Definition, id string, g *Grid, i int) (*pointRecord, error) {
	var pf pointFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadPoint, err)
	}
	switch {
	case pf.Sweep != id:
		return nil, fmt.Errorf("%w: it belongs to sweep %s, not %s", errBadPoint, pf.Sweep, id)
	case pf.Point != i:
		return nil, fmt.Errorf("%w: it holds point %d", errBadPoint, pf.Point)
	case len(pf.Replications) == 0:
		return nil, fmt.Errorf("%w: no replications", errBadPoint)
	case (pf.Reached != nil) != (d.Precision > 0):
		return nil, fmt.Errorf("%w: precision_reached does not match the definition", errBadPoint)
	case (pf.Decided != nil) != (len(d.Decide) > 0):
		return nil, fmt.Errorf("%w: decided does not match the definition", errBadPoint)
	}
	vs := g.Values(i)
	if len(pf.Params) != len(vs) {
		return nil, fmt.Errorf("%w: %d parameters, not %d", errBadPoint, len(pf.Params), len(vs))
	}
	for k, v := range vs {
		if pf.Params[k] != v.Text {
			return nil, fmt.Errorf("%w: %s=%s, not %s", errBadPoint, g.Params[k].Key, pf.Params[k], v.Text)
		}
	}
	rec := &pointRecord{Point: i}
	if pf.Reached != nil {
		rec.Reached = *pf.Reached
	}
	if pf.Decided != nil {
		rec.Reached = *pf.Decided
	}
	for _, r := range pf.Replications {
		if len(r.Values) != len(d.Metrics) {
			return nil, fmt.Errorf("%w: %d metrics, not %d", errBadPoint, len(r.Values), len(d.Metrics))
		}
		vals := make([]float64, len(r.Values))
		for j, x := range r.Values {
			vals[j] = float64(x)
		}
		rec.Reps = append(rec.Reps, rep{Seed: r.Seed, Complete: r.Complete, Values: vals})
	}
	return rec, nil
}

// readPoint reads point i's file from dir. ok is false when the point has
// no file yet.
func readPoint(dir string, d *Definition, id string, g *Grid, i int) (rec *pointRecord, ok bool, err error) {
	data, err := os.ReadFile(pointPath(dir, i))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sweep: reading point %d: %w", i, err)
	}
	rec, err = decodePoint(data, d, id, g, i)
	if err != nil {
		return nil, false, fmt.Errorf("sweep: %s: %w", pointPath(dir, i), err)
	}
	return rec, true, nil
}

// writePoint writes point i's file atomically: a reader (or a resumed
// sweep) sees the whole file or none.
func writePoint(dir string, data []byte, i int) error {
	if err := atomicfile.WriteBytes(pointPath(dir, i), data); err != nil {
		return fmt.Errorf("sweep: saving point %d: %w", i, err)
	}
	return nil
}

// removeTemps deletes the temporary files of writes a killed sweep left
// behind in dir/points.
func removeTemps(dir string) error {
	ents, err := os.ReadDir(filepath.Join(dir, pointsDir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("sweep: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			if err := os.Remove(filepath.Join(dir, pointsDir, e.Name())); err != nil {
				return fmt.Errorf("sweep: removing a leftover temporary file: %w", err)
			}
		}
	}
	return nil
}

// lockDir takes an exclusive lock on dir, so that two sweeps never write
// one directory; the lock dies with the process. unlock releases it.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sweep: locking %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("sweep: %s is in use by another sweep or merge (wait for it to end, or choose another --out)", dir)
		}
		return nil, fmt.Errorf("sweep: locking %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
