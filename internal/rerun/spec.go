// Package rerun turns a plan of `empties select` into what the project's
// Python runs (`python -m empties rerun SPEC`: inspect_ai's eval_set, one log
// folder per group), runs it with progress per group, and keeps the budget:
// what a plan would still cost against what was spent and the manifest's
// ceiling. A run is Load (the plan, the manifest and every input checked),
// Assess (the budget, and what each group's logs already hold) and Execute
// (the unfinished groups through the Python runner); stage rerun (`empties
// rerun PLAN`) holds the flags, the help and the printing.
package rerun

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"empties/internal/planfile"
	"empties/internal/vocab"
)

// SpecFormat is the spec format python/src/empties/study/rerun.py reads.
const SpecFormat = 1

// Spec is what the Python runner runs (python/src/empties/study/rerun.py).
type Spec struct {
	Format    int     `json:"format"`
	Harness   string  `json:"harness"`
	LogBuffer *int    `json:"log_buffer,omitempty"`
	Groups    []Group `json:"groups"`

	// the runner's life (rerun.py, "Stopping"): the log folder's lock it
	// inherits, the empties it watches, how long it outlives it at most
	LockFD      int     `json:"lock_fd"`
	ParentPID   int     `json:"parent_pid"`
	OrphanGrace float64 `json:"orphan_grace"` // seconds
}

// Group is one eval_set: one group of the plan, in its own log folder.
type Group struct {
	Index      int               `json:"index"`
	Label      string            `json:"label"`
	LogDir     string            `json:"log_dir"`
	Rel        string            `json:"-"` // LogDir inside the log folder: names the plan's rule checked (plan.Read)
	Task       string            `json:"task"`
	TaskArgs   map[string]any    `json:"task_args,omitempty"`
	Model      string            `json:"model,omitempty"` // "" for Part C: none/none, never called
	ModelArgs  map[string]any    `json:"model_args,omitempty"`
	ModelRoles map[string]any    `json:"model_roles,omitempty"`
	Config     map[string]any    `json:"config,omitempty"`
	Epochs     int64             `json:"epochs"`
	SampleIDs  []any             `json:"sample_ids,omitempty"` // re-runs: the planned ids, typed as the log has them
	Replay     []Replay          `json:"replay,omitempty"`     // Part B and C: one sample per reply to grade
	Metadata   map[string]string `json:"metadata,omitempty"`
	Tags       []string          `json:"tags,omitempty"`

	Planned int                `json:"planned"` // sample × epoch records the group's log holds when it is done
	Cost    planfile.GroupCost `json:"-"`
}

// Replay is one replayed sample: a copy of the dataset's sample ID under
// NewID, its reply Text, and metadata that says what it grades.
type Replay struct {
	ID       any            `json:"id"`
	NewID    string         `json:"new_id"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

// Replays reports whether the group replays replies (no model under test).
func (g *Group) Replays() bool { return g.Replay != nil }

// Build makes the spec groups of a plan, each with its log folder under
// root: <eval>/<route> (the route's slashes as dashes) for a group with a
// route, <eval> for Part C, with -2, -3, ... on a name already taken (two
// logs of one eval × route). Groups without samples are left out. tags go
// on every log. The names are those plan.Read checked (guard.CheckName):
// the folders lie inside root as names go; Load proves it of the folders
// as they are (guard.SubPath, symlinks resolved).
func Build(p *planfile.Plan, root string, tags []string) []Group {
	var out []Group
	taken := map[string]bool{}
	for _, g := range p.Groups {
		if len(g.Samples) == 0 {
			continue
		}
		name := g.Eval
		if g.Route != "" {
			name = filepath.Join(g.Eval, strings.ReplaceAll(g.Route, "/", "-"))
		}
		if p.Kind == planfile.PartB && g.Metadata["empties_arm"] != "" && g.Metadata["empties_arm"] != vocab.ArmDefault {
			name += "-" + g.Metadata["empties_arm"]
		}
		dir := name
		for n := 2; taken[dir]; n++ {
			dir = fmt.Sprintf("%s-%d", name, n)
		}
		taken[dir] = true
		sg := Group{Index: len(out) + 1, Label: label(p.Kind, g), LogDir: filepath.Join(root, dir), Rel: dir, Task: g.Task,
			TaskArgs: g.TaskArgs, Model: g.Model, ModelArgs: g.ModelArgs, ModelRoles: g.ModelRoles, Config: g.Settings,
			Epochs: max(g.Epochs, 1), Metadata: g.Metadata, Tags: tags}
		if g.Cost != nil {
			sg.Cost = *g.Cost
		}
		switch p.Kind {
		case planfile.PartC:
			sg.Model, sg.ModelArgs, sg.Epochs = "", nil, 1
			sg.Replay = []Replay{}
			for _, s := range g.Samples {
				for _, f := range s.Forms {
					for k := 1; k <= f.Repeats; k++ {
						sg.Replay = append(sg.Replay, Replay{ID: typedID(s), NewID: fmt.Sprintf("%s__%s__r%d", s.ID, f.Name, k), Text: f.Text,
							Metadata: map[string]any{"empties_form": f.Name, "empties_sample_id": s.ID, "empties_repeat": k}})
					}
				}
			}
			sg.Planned = len(sg.Replay)
		case planfile.PartB:
			sg.Epochs = 1
			sg.Replay = []Replay{}
			for _, s := range g.Samples {
				sg.Replay = append(sg.Replay, Replay{ID: typedID(s), NewID: fmt.Sprintf("%s__e%d", s.ID, s.Epoch), Text: *s.Text,
					Metadata: map[string]any{"empties_sample_id": s.ID, "empties_epoch": s.Epoch, "empties_original_eval_id": s.OriginalEvalID}})
			}
			sg.Planned = len(sg.Replay)
		default:
			seen := map[string]bool{}
			for _, s := range g.Samples {
				if !seen[s.ID] {
					seen[s.ID] = true
					sg.SampleIDs = append(sg.SampleIDs, typedID(s))
				}
			}
			sg.Planned = len(sg.SampleIDs) * int(sg.Epochs)
		}
		out = append(out, sg)
	}
	return out
}

func label(kind string, g planfile.Group) string {
	switch {
	case kind == planfile.PartC:
		return "partc " + g.Eval
	case kind == planfile.PartB && g.Metadata["empties_arm"] != vocab.ArmDefault:
		return fmt.Sprintf("partb %s × %s (arm %s)", g.Eval, g.Route, g.Metadata["empties_arm"])
	}
	return fmt.Sprintf("%s %s × %s", kind, g.Eval, g.Route)
}

// typedID is a sample id as its log has it: an int for id_type int.
func typedID(s planfile.Sample) any {
	if s.IDType == "int" {
		if n, err := strconv.ParseInt(s.ID, 10, 64); err == nil {
			return n
		}
	}
	return s.ID
}

// Command is the inspect command line a group's run amounts to, for --dry-run
// and the plan's reader. A replay group's dataset (one copy of each sample
// per reply) is made by `empties rerun` itself; its line says so.
func Command(g Group) string {
	parts := []string{"inspect", "eval-set", planfile.ShellQuote(g.Task), "--log-dir", planfile.ShellQuote(g.LogDir)}
	model := g.Model
	if model == "" {
		model = "none/none"
	}
	parts = append(parts, "--model", planfile.ShellQuote(model))
	for _, k := range slices.Sorted(maps.Keys(g.ModelArgs)) {
		if v, ok := scalar(g.ModelArgs[k]); ok {
			parts = append(parts, "-M", planfile.ShellQuote(k+"="+v))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.TaskArgs)) {
		v, ok := scalar(g.TaskArgs[k])
		if name := planfile.ModelName(g.TaskArgs[k]); name != "" {
			v, ok = name, true
		}
		if ok {
			parts = append(parts, "-T", planfile.ShellQuote(k+"="+v))
		}
	}
	for _, r := range slices.Sorted(maps.Keys(g.ModelRoles)) {
		if name := planfile.ModelName(g.ModelRoles[r]); name != "" {
			parts = append(parts, "--model-role", planfile.ShellQuote(r+"="+name))
		}
	}
	if g.Replays() {
		parts = append(parts, "--solver", "empties/replay", "--epochs", "1")
	} else {
		ids := make([]string, len(g.SampleIDs))
		for i, id := range g.SampleIDs {
			ids[i] = fmt.Sprint(id)
		}
		parts = append(parts, "--sample-id", planfile.ShellQuote(strings.Join(ids, ",")), "--epochs", fmt.Sprint(g.Epochs))
	}
	for _, k := range slices.Sorted(maps.Keys(g.Config)) {
		if v, ok := scalar(g.Config[k]); ok {
			parts = append(parts, "--"+strings.ReplaceAll(k, "_", "-"), planfile.ShellQuote(v))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.Metadata)) {
		parts = append(parts, "--metadata", planfile.ShellQuote(k+"="+g.Metadata[k]))
	}
	for _, t := range g.Tags {
		parts = append(parts, "--tags", planfile.ShellQuote(t))
	}
	line := strings.Join(parts, " ")
	if g.Replays() {
		line += fmt.Sprintf("   # %d replayed samples: each planned sample copied once per reply, the reply in metadata empties_replay (a dataset only empties rerun makes)", len(g.Replay))
	}
	return line
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool, float64, int, int64:
		return fmt.Sprint(x), true
	}
	return "", false
}
