package rerun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/manifest"
	"empties/internal/planfile"
	"empties/internal/store"
)

// Config is a run of a plan, as `empties rerun`'s flags give it.
type Config struct {
	Plan     string // PLAN.json
	Manifest string
	// AllowPreregMismatch accepts a manifest whose pre-registration's
	// SHA-256 differs (manifest.Options).
	AllowPreregMismatch bool
	Data                string // dataset whose spend counts; "" = the plan's
	LogDir              string // "" = PLAN without .json
	DryRun              bool
	AllowOverBudget     bool
	AllowUnpriced       bool     // run although some calls have no price (their cost is not counted)
	Python              string   // "" = Python's choice
	Harness             string   // Python file with setup()/model() (simulated runs, tests)
	Tags                []string // on every log
	LogBuffer           int      // samples inspect_ai buffers before writing its log; 0 = its default
}

// Run is a plan ready to run: what Load read and checked, and after Assess,
// what each group's logs already hold and where the budget stands.
type Run struct {
	Config   Config // with LogDir and Data filled in, Harness absolute
	Plan     *planfile.Plan
	Manifest *manifest.Manifest
	Python   string  // the interpreter RunPython starts
	Root     string  // the log folder, resolved (guard.CheckLogFolder)
	Groups   []Group // every group of the plan that has samples
	Records  int     // sample × epoch records the groups plan
	Busy     error   // a dry run's note: another process holds the log folder (a real run is refused)

	// set by Assess
	Budget   Budget
	Done     map[int]int // records each group's logs hold (by Group.Index)
	Todo     []Group     // the groups whose logs are not finished
	FromPlan bool        // no dataset: Budget.SpentDataUSD is what the plan recorded

	rules guard.Rules
}

// Load reads the plan and the manifest and checks every other input before
// any work (Assess ingests logs): the files named, the log folder (the
// command checks the values it was given first: reruncmd's Validate). Each
// mistake is a usage error naming it.
func Load(cfg Config) (*Run, error) {
	p, err := planfile.Read(cfg.Plan)
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	m, err := manifest.Load(cfg.Manifest, manifest.Options{AllowPreregMismatch: cfg.AllowPreregMismatch})
	if err != nil { // the command was given a wrong file: a usage error, as a wrong plan is
		return nil, &cliutil.UsageError{Msg: "rerun: " + err.Error()}
	}
	if cfg.Data != "" { // named: it must be a dataset (the plan's own may have moved: then the plan's record of the spend is used)
		if err := store.CheckReadable("rerun", cfg.Data); err != nil {
			return nil, err
		}
	}
	python := Python(cfg.Python)
	if !cfg.DryRun {
		if _, err := exec.LookPath(python); err != nil {
			return nil, cliutil.Usagef("rerun: Python %s: no such program (or not executable); name one with inspect_ai and the empties package with --python or $EMPTIES_PYTHON (make pypkg installs it into .venv)", python)
		}
	}
	if cfg.LogDir == "" {
		cfg.LogDir = strings.TrimSuffix(cfg.Plan, ".json")
		if cfg.LogDir == cfg.Plan {
			return nil, cliutil.Usagef("rerun: %s does not end in .json; give the log folder with --log-dir", cfg.Plan)
		}
	}
	if cfg.Data == "" {
		cfg.Data = p.Data
	}
	given := cfg.Harness
	if cfg.Harness != "" {
		if cfg.Harness, err = filepath.Abs(cfg.Harness); err != nil {
			return nil, err
		}
		if st, err := os.Stat(cfg.Harness); err != nil || st.IsDir() {
			return nil, cliutil.Usagef("rerun: --harness %s: no such file; name a Python file defining setup(group) and model(name, group, role)", given)
		}
	}
	rules := guard.Rules{Avoid: []string{cfg.Plan, given}}
	root, _, err := guard.CheckLogFolder(cfg.LogDir, "rerun", rules)
	if err != nil {
		return nil, err
	}
	r := &Run{Config: cfg, Plan: p, Manifest: m, Python: python, Root: root, Groups: Build(p, root, cfg.Tags), rules: rules}
	for _, g := range r.Groups {
		r.Records += g.Planned
		if _, err := guard.SubPath(root, g.Rel); err != nil {
			return nil, cliutil.Usagef("rerun: %s: group %d (%s): %v", cfg.Plan, g.Index, g.Label, err)
		}
	}
	// a live runner of the folder (whose empties may be gone) refuses a
	// real run before any work; Execute's lock decides
	if err := guard.CheckLogFolderFree(cfg.LogDir, root); err != nil {
		if !cfg.DryRun {
			return nil, fmt.Errorf("rerun: %w", err)
		}
		r.Busy = err
	}
	return r, nil
}

// Assess sets the budget and what each group still has to run: what was
// spent (the dataset's logs, this plan's, and the log folders of other plans
// beside it that the dataset does not hold yet) and the share of each
// group's estimate its logs do not hold.
func (r *Run) Assess(ctx context.Context) error {
	b := Budget{CeilingUSD: r.Manifest.Budget.CeilingUSD, Unpriced: r.Plan.Cost.Unpriced}
	others := SiblingLogFolders(r.Root)
	before, err := Account(ctx, append([]string{r.Root}, others...), r.Manifest, groupDirs(r.Groups)...)
	if err != nil {
		return err
	}
	b.SpentLogsUSD = before.In(r.Root).USD
	for _, o := range others {
		b.SpentOtherUSD += before.In(o).USD
	}
	r.Done, r.Todo = map[int]int{}, nil
	for _, g := range r.Groups {
		st := before.In(g.LogDir)
		r.Done[g.Index] = st.Records
		b.Remaining(g, st.Records)
		if !st.Finished || st.Records < g.Planned {
			r.Todo = append(r.Todo, g)
		}
	}
	for _, d := range append([]string{r.Root}, others...) {
		st := before.In(d)
		b.AddUnpriced(st.Unpriced, st.UnpricedModels)
	}
	data, err := DatasetSpend(ctx, r.Config.Data, append([]string{r.Root}, others...), r.Manifest)
	if err != nil {
		return err
	}
	b.SpentDataUSD = data.USD
	b.AddUnpriced(data.Unpriced, data.UnpricedModels)
	if data.FromPlan {
		b.SpentDataUSD = r.Plan.Cost.SpentUSD
	}
	r.Budget, r.FromPlan = b, data.FromPlan
	return nil
}

// Refused is the refusal of a run the budget does not allow, nil when it
// may run: over the ceiling (unless overFlag's --allow-over-budget), or not
// bounded because some calls have no price (unless unpricedFlag's).
func (r *Run) Refused(overFlag, unpricedFlag string) error {
	if r.Budget.Over() && !r.Config.AllowOverBudget {
		return r.Budget.OverError(overFlag)
	}
	if r.Budget.Unbounded() && !r.Config.AllowUnpriced {
		return r.Budget.UnpricedError(unpricedFlag)
	}
	return nil
}

// Outcome is what a run of the unfinished groups did.
type Outcome struct {
	Stopped bool        // stopped on request (a Ctrl-C, a signal to the runner): the logs keep what finished
	Spent   FolderState // what this plan's logs hold and spent after the run
	After   map[int]int // records each group's logs hold after the run (by Group.Index)
	Output  string      // the Python runner's own output, its last 64 KiB
	Failed  []string    // labels of the groups that did not finish
	RunErr  error       // the Python runner failed
}

// Execute runs the groups whose logs are not finished (Todo) through the
// Python runner in the plan's log folder, printing their progress to w, and
// accounts for what this plan's logs then hold, also after a stop. The
// folder's lock is the runner's too (guard.LogFolder.LockFile): it is held
// while either lives. A run stopped by a cancelled ctx returns an Outcome
// with Stopped and the context's error.
func (r *Run) Execute(ctx context.Context, w io.Writer) (*Outcome, error) {
	folder, err := guard.OpenLogFolder(r.Config.LogDir, "rerun", "inspect_ai eval_set (python -m empties rerun)", r.rules)
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	defer folder.Close()
	for _, g := range r.Todo {
		if _, err := folder.Sub(g.Rel); err != nil {
			return nil, fmt.Errorf("rerun: group %d (%s): %w", g.Index, g.Label, err)
		}
	}
	spec := Spec{Format: SpecFormat, Harness: r.Config.Harness, Groups: r.Todo,
		LockFD: RunnerLockFD, ParentPID: os.Getpid(), OrphanGrace: OrphanGrace().Seconds()}
	if r.Config.LogBuffer > 0 {
		n := r.Config.LogBuffer
		spec.LogBuffer = &n
	}
	specPath, cleanup, err := writeSpec(spec)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	holder := guard.Holder{Command: "rerun", EmptiesPID: os.Getpid(), Writer: "runner (python -m empties rerun)", Started: time.Now().UTC().Format(time.RFC3339)}
	if err := folder.Hold(holder); err != nil {
		return nil, err
	}
	progress := &Progress{W: w, Groups: r.Groups, Done: r.Done}
	runner := Runner{Python: r.Python, Spec: specPath, Env: os.Environ(), Lock: folder.LockFile(), OnEvent: progress.Event,
		OnStart: func(pid int) {
			holder.WriterPID = pid
			folder.Hold(holder) // names the runner in a refusal; the lock decides, so a failure here is no harm
		}}
	output, runErr := runner.Run(ctx)
	stopped := ctx.Err() != nil || errors.Is(runErr, errStopped) || progress.Stopped
	// what the logs hold now is read also after a Ctrl-C (the runner has
	// written them): a second one ends the process anyway
	after, err := Account(context.WithoutCancel(ctx), []string{r.Root}, r.Manifest, groupDirs(r.Groups)...)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Stopped: stopped, Spent: after.In(r.Root), After: map[int]int{}, Output: output, Failed: progress.Failed}
	for _, g := range r.Groups {
		out.After[g.Index] = after.In(g.LogDir).Records
	}
	if stopped {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, nil
	}
	out.RunErr = runErr
	return out, nil
}

func groupDirs(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.LogDir
	}
	return out
}

// writeSpec writes the spec to a scratch file outside every output: spec.json
// in a temporary folder of its own (guard.TempDir), which cleanup removes.
func writeSpec(spec Spec) (string, func(), error) {
	tmp, err := guard.TempDir(os.TempDir(), "empties-rerun-spec.")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { tmp.Close() }
	p := filepath.Join(tmp.Path, "spec.json")
	f, err := guard.Create(p)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	if err := enc.Encode(spec); err != nil {
		f.Close()
		cleanup()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, err
	}
	return p, cleanup, nil
}
