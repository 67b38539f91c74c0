package sweep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
)

// Merge combines the directories of one sweep — its shards, or partial
// runs of it — into out, which then holds exactly what the unsharded
// sweep would have written: manifest.json, points/, sweep.csv and
// sweep.json, byte for byte. Every point must be finished in at least one
// directory; a point finished in several must be identical in each (it
// is, for the same sweep and poolsim version).
func Merge(dirs []string, out string) (*Results, error) {
	if len(dirs) == 0 {
		return nil, inputerr.New("merge", 0, 0, "", "no sweep directories", "one or more directories written by poolsim sweep (--shard i/n)")
	}
	var def *Definition
	var first string
	shards := map[string][]string{} // shard → dirs
	for _, dir := range dirs {
		m, ok, err := readManifest(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, inputerr.New(dir, 0, 0, "", "not a sweep directory (no manifest.json)", "a directory written by poolsim sweep --out")
		}
		if def == nil {
			d := m.Definition
			def, first = &d, dir
		} else if m.ID != def.ID() {
			return nil, inputerr.New(dir, 0, 0, "", fmt.Sprintf("holds another sweep than %s (%s)", first, def.diff(&m.Definition)), "shards of one sweep: the same scenario, flags and poolsim version")
		}
		shards[m.Shard] = append(shards[m.Shard], dir)
	}
	g, err := def.Grid()
	if err != nil {
		return nil, err
	}
	id := def.ID()

	// Find every point's file, checking duplicates agree.
	src := make([][]byte, g.Len())
	from := make([]string, g.Len())
	for _, dir := range dirs {
		ents, err := os.ReadDir(filepath.Join(dir, pointsDir))
		if err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("sweep: merge: %w", err)
		}
		for _, e := range ents {
			var i int
			if n, _ := fmt.Sscanf(e.Name(), "%07d.json", &i); n != 1 || e.Name() != filepath.Base(pointPath("", i)) || i < 0 || i >= g.Len() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, pointsDir, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("sweep: merge: %w", err)
			}
			if _, err := decodePoint(data, def, id, g, i); err != nil {
				return nil, inputerr.New(filepath.Join(dir, pointsDir, e.Name()), 0, 0, "", err.Error(), "a point file written by poolsim sweep")
			}
			if src[i] != nil && !bytes.Equal(src[i], data) {
				return nil, inputerr.New(filepath.Join(dir, pointsDir, e.Name()), 0, 0, "", fmt.Sprintf("differs from point %d in %s (the same point must give the same results; were they made by different poolsim builds?)", i, from[i]), "")
			}
			src[i], from[i] = data, dir
		}
	}
	var missing []int
	for i, b := range src {
		if b == nil {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, inputerr.New("merge", 0, 0, "", fmt.Sprintf("%d of %d points are missing (%s)%s", len(missing), g.Len(), listInts(missing, 10), missingShards(g, shards, missing)), "every shard's directory, each finished (rerun an unfinished shard with --resume)")
	}

	if err := os.MkdirAll(filepath.Join(out, pointsDir), 0o755); err != nil {
		return nil, inputerr.New(out, 0, 0, "--out", fmt.Sprintf("cannot create the directory: %v", err), "")
	}
	unlock, err := lockDir(out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if m, ok, err := readManifest(out); err != nil {
		return nil, err
	} else if ok && (m.ID != id || m.Shard != "") {
		what := "another sweep"
		if m.ID == id {
			what = "shard " + m.Shard
		}
		return nil, inputerr.New(filepath.Join(out, manifestName), 0, 0, "--out", "already holds "+what, "an empty directory, or one holding this merged sweep")
	}
	if err := removeTemps(out); err != nil {
		return nil, err
	}
	for i, data := range src {
		p := pointPath(out, i)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := atomicfile.WriteBytes(p, data); err != nil {
			return nil, fmt.Errorf("sweep: merge: %w", err)
		}
	}
	if err := writeManifest(out, def, Shard{}); err != nil {
		return nil, err
	}
	all := make([]int, g.Len())
	for i := range all {
		all[i] = i
	}
	res, err := assemble(out, def, g, Shard{}, all)
	if err != nil {
		return nil, err
	}
	if err := res.Write(out); err != nil {
		return nil, err
	}
	return res, nil
}

// missingShards says which shards the missing points belong to, for the
// shard counts seen among the merged directories.
func missingShards(g *Grid, have map[string][]string, missing []int) string {
	counts := map[int]bool{}
	for sh := range have {
		if s, err := ParseShard(sh); err == nil && !s.Whole() {
			counts[s.Count] = true
		}
	}
	if len(counts) != 1 {
		return ""
	}
	var n int
	for c := range counts {
		n = c
	}
	miss := map[int]bool{}
	for _, i := range missing {
		miss[i] = true
	}
	var names []string
	for k := 1; k <= n; k++ {
		sh := Shard{Index: k, Count: n}
		for _, i := range g.ShardPoints(sh) {
			if miss[i] {
				state := "unfinished"
				if _, ok := have[sh.String()]; !ok {
					state = "absent"
				}
				names = append(names, sh.String()+" ("+state+")")
				break
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; they belong to shard " + strings.Join(names, ", ")
}
