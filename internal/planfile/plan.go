// Package planfile is the JSON form of a plan `empties select` writes (PLAN.json)
// and `empties rerun` runs: per group (one eval × route of a re-run arm, one
// eval of Part C, one original log of Part B) the task, its arguments and
// judges, the model and its settings, the samples and what to run of them.
package planfile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/vocab"
)

// Kinds of plan.
const (
	Wide    = vocab.ArmWide    // every truncated_empty reply again with more room (D1(b))
	Control = vocab.ArmControl // non-answers again at the same settings (transient share)
	PartC   = "partc"          // judges grading non-answer forms (D4)
	PartB   = "partb"          // judges grading replies the original run never showed them (needs_judge)
)

// Kinds are the plans select writes, in the order it documents them.
var Kinds = []string{Wide, Control, PartC, PartB}

// Replays reports whether a plan of this kind replays replies (the model
// under test is not called) rather than running the model again.
func Replays(kind string) bool { return kind == PartC || kind == PartB }

// Plan is the JSON form of a plan.
type Plan struct {
	WrittenBy string   `json:"written_by"` // "empties select": the mark a plan empties wrote begins with
	Kind      string   `json:"kind"`
	Manifest  string   `json:"manifest"`
	Data      string   `json:"data"`
	Seed      uint64   `json:"seed"`
	Groups    []Group  `json:"groups"`
	Size      Size     `json:"size"`
	Cost      Cost     `json:"cost"`
	Notes     []string `json:"notes,omitempty"` // what the plan could not include, and why
}

// Group is what one eval × route runs (one eval for Part C).
type Group struct {
	Eval       string            `json:"eval"`
	Route      string            `json:"route"`
	Task       string            `json:"task"`
	TaskArgs   map[string]any    `json:"task_args,omitempty"`   // the original run's, judges included
	Model      string            `json:"model"`                 // the model under test ("" for Part C: none is called)
	ModelArgs  map[string]any    `json:"model_args,omitempty"`  // the original run's model args
	ModelRoles map[string]any    `json:"model_roles,omitempty"` // judges bound as model roles (the original run's, or the manifest's)
	Settings   map[string]any    `json:"settings,omitempty"`    // generate config: the original run's, with the arm's changes
	Metadata   map[string]string `json:"metadata"`
	Epochs     int64             `json:"epochs"`
	Judge      string            `json:"judge,omitempty"`
	Samples    []Sample          `json:"samples"`
	Command    string            `json:"command,omitempty"`
	Cost       *GroupCost        `json:"cost,omitempty"`
}

// Sample is one sample to run.
type Sample struct {
	ID             string  `json:"id"`
	IDType         string  `json:"id_type"` // int or str, as the log has it
	Epoch          int64   `json:"epoch,omitempty"`
	OriginalLog    string  `json:"original_log"`
	OriginalEvalID string  `json:"original_eval_id,omitempty"` // Part B: the eval id of the log whose score it completes
	OriginalClass  string  `json:"original_class,omitempty"`
	Text           *string `json:"text,omitempty"` // Part B: the stored reply to replay
	Forms          []Form  `json:"forms,omitempty"`
}

// Form is a Part C form with its repeats.
type Form struct {
	Name    string `json:"name"`
	Text    string `json:"text"`
	Repeats int    `json:"repeats"`
}

// Size of a plan.
type Size struct {
	Samples int `json:"samples"`
	Calls   int `json:"calls"`
}

// Cost estimates a plan in US dollars.
type Cost struct {
	EstimateUSD   float64  `json:"estimate_usd"`
	UpperBoundUSD float64  `json:"upper_bound_usd"`
	SpentUSD      float64  `json:"spent_usd"`
	CeilingUSD    float64  `json:"ceiling_usd"`
	WithinBudget  bool     `json:"within_budget"`
	Unpriced      []string `json:"unpriced,omitempty"`
}

// GroupCost is a group's share of the plan's estimate.
type GroupCost struct {
	EstimateUSD   float64 `json:"estimate_usd"`
	UpperBoundUSD float64 `json:"upper_bound_usd"`
}

// Read reads and checks a PLAN.json; a file that is missing, not JSON or not
// a valid plan is a usage error (exit 2): the command was given a wrong file.
func Read(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, cliutil.Usagef("%s: no such plan; write one with `empties select wide|control|partc|partb --out PLAN`", path)
	}
	if err != nil {
		return nil, cliutil.Usagef("%s: cannot read the plan: %v", path, unwrapPath(err))
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, cliutil.Usagef("%s: not a plan of empties select: %v", path, err)
	}
	if err := p.check(); err != nil {
		return nil, cliutil.Usagef("%s: %v", path, err)
	}
	return &p, nil
}

func (p *Plan) check() error {
	known := false
	for _, k := range Kinds {
		known = known || p.Kind == k
	}
	if !known {
		return fmt.Errorf("plan kind %q: plans are wide, control, partc and partb (written by empties select)", p.Kind)
	}
	if err := p.Cost.check("cost"); err != nil {
		return err
	}
	for i, g := range p.Groups {
		where := fmt.Sprintf("group %d (%s %s)", i+1, g.Eval, g.Route)
		switch {
		case g.Eval == "":
			return fmt.Errorf("%s: no eval", where)
		case g.Task == "":
			return fmt.Errorf("%s: no task: the plan names no task to run (write it again with this empties' select)", where)
		case !Replays(p.Kind) && g.Model == "":
			return fmt.Errorf("%s: no model to re-run", where)
		}
		if err := g.checkNames(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if g.Cost != nil {
			if err := g.Cost.check(); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		for _, s := range g.Samples {
			switch {
			case s.ID == "":
				return fmt.Errorf("%s: a sample without an id", where)
			case s.IDType != "" && s.IDType != "int" && s.IDType != "str":
				return fmt.Errorf("%s: sample %s: id_type %q (int or str)", where, s.ID, s.IDType)
			case p.Kind == PartC && len(s.Forms) == 0:
				return fmt.Errorf("%s: sample %s has no forms to replay", where, s.ID)
			case p.Kind == PartB && s.Text == nil:
				return fmt.Errorf("%s: sample %s has no reply to replay (text)", where, s.ID)
			}
		}
	}
	return nil
}

// checkNames applies the guard's one rule for names that become paths
// (guard.CheckName) to the group's: its eval and route name its log folder
// (<eval>/<route with '-' for '/'>, and a Part B arm after it), its task is
// a registered task's name. A name that would reach outside the log folder
// ("../../victim", "/etc", "a/../../b") is refused before anything runs.
func (g *Group) checkNames() error {
	if err := guard.CheckName(g.Eval); err != nil {
		return fmt.Errorf("eval %w", err)
	}
	if g.Route != "" {
		if err := guard.CheckNames(g.Route); err != nil {
			return fmt.Errorf("route %w", err)
		}
	}
	if err := guard.CheckNames(g.Task); err != nil {
		return fmt.Errorf("task %w (a registered task's name, e.g. inspect_evals/xstest)", err)
	}
	if arm, ok := g.Metadata["empties_arm"]; ok && !slices.Contains(vocab.Arms, arm) {
		return fmt.Errorf("metadata empties_arm %q: arms are %s", arm, strings.Join(vocab.Arms, ", "))
	}
	return nil
}

// money is a sum of dollars a plan records: finite and not negative.
func money(field string, usd float64) error {
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 {
		return fmt.Errorf("%s is %v: a cost is a finite number of dollars, 0 or more (write the plan again with empties select)", field, usd)
	}
	return nil
}

func (c *Cost) check(at string) error {
	for _, f := range []struct {
		name string
		usd  float64
	}{{"estimate_usd", c.EstimateUSD}, {"upper_bound_usd", c.UpperBoundUSD}, {"spent_usd", c.SpentUSD}, {"ceiling_usd", c.CeilingUSD}} {
		if err := money(at+"."+f.name, f.usd); err != nil {
			return err
		}
	}
	return nil
}

func (c *GroupCost) check() error {
	if err := money("cost.estimate_usd", c.EstimateUSD); err != nil {
		return err
	}
	if err := money("cost.upper_bound_usd", c.UpperBoundUSD); err != nil {
		return err
	}
	if c.UpperBoundUSD < c.EstimateUSD {
		return fmt.Errorf("cost.upper_bound_usd %v is below its estimate_usd %v: an upper bound is at least the estimate (write the plan again with empties select)", c.UpperBoundUSD, c.EstimateUSD)
	}
	return nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ModelName is the model a task argument or model role names: a name, or a
// model config as a log stores it ({"model": NAME, "config": ..., ...}); ""
// for anything else.
func ModelName(v any) string {
	switch m := v.(type) {
	case string:
		return m
	case map[string]any:
		if name, ok := m["model"].(string); ok {
			return name
		}
	}
	return ""
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
