// Package manifest loads the experiment manifest: the one YAML file that
// declares the study (pre-registration and its SHA-256, eval profiles,
// routes, how a log maps to an eval, route, arm and part, the primary cells,
// every decision threshold, the bootstrap and the budget). Every error names
// the file and line at fault.
package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"empties/internal/guard"
	"empties/internal/vocab"
)

// Manifest is a loaded, validated study manifest.
type Manifest struct {
	Path            string
	Version         int                 `yaml:"version"`
	Study           string              `yaml:"study"`
	Preregistration Preregistration     `yaml:"preregistration"`
	ProfileGlobs    []string            `yaml:"profiles"`
	EvalNames       []string            `yaml:"evals"`
	Routes          []Route             `yaml:"routes"`
	Mapping         Mapping             `yaml:"mapping"`
	PrimaryCells    []PrimaryCell       `yaml:"primary_cells"`
	Thresholds      Thresholds          `yaml:"thresholds"`
	Bootstrap       Bootstrap           `yaml:"bootstrap"`
	Budget          Budget              `yaml:"budget"`
	Arms            Arms                `yaml:"arms"`
	PartC           PartC               `yaml:"part_c"`
	Judges          map[string]Judges   `yaml:"judges"`
	Profiles        map[string]*Profile `yaml:"-"`
}

// Preregistration names the approved design the decision rules come from.
type Preregistration struct {
	File          string `yaml:"file"`
	SHA256        string `yaml:"sha256"`
	AllowMismatch bool   `yaml:"allow_mismatch"`
	line          int
}

// Route is one way of reaching a model.
type Route struct {
	Name      string   `yaml:"name"`
	Model     string   `yaml:"model"`
	Provider  string   `yaml:"provider"`
	Adapter   string   `yaml:"adapter"`
	Reasoning bool     `yaml:"reasoning"`
	Prices    Prices   `yaml:"prices"`
	Models    []string `yaml:"models"` // log eval.model values that are this route
	Line      int      `yaml:"-"`
}

// Prices are US dollars per million tokens.
type Prices struct {
	Input     float64 `yaml:"input"`
	Output    float64 `yaml:"output"`
	Reasoning float64 `yaml:"reasoning"`
	CacheRead float64 `yaml:"cache_read"`
}

// Mapping says how a log maps to eval, route, arm and part: eval metadata
// or tags first, path globs second, then the defaults.
type Mapping struct {
	MetadataKeys MetadataKeys `yaml:"metadata_keys"`
	Rules        []Rule       `yaml:"rules"`
	Default      Assignment   `yaml:"default"`
}

// MetadataKeys name the eval metadata keys (or tag prefixes key=value) that
// carry an assignment; the plans `empties select` writes set them.
type MetadataKeys struct {
	Eval  string `yaml:"eval"`
	Route string `yaml:"route"`
	Arm   string `yaml:"arm"`
	Part  string `yaml:"part"`
}

// Assignment is a (partial) eval/route/arm/part.
type Assignment struct {
	Eval  string `yaml:"eval"`
	Route string `yaml:"route"`
	Arm   string `yaml:"arm"`
	Part  string `yaml:"part"`
}

// Rule assigns logs whose path matches Path (a glob, ** allowed).
type Rule struct {
	Path       string `yaml:"path"`
	Assignment `yaml:",inline"`
	Line       int `yaml:"-"`
}

// PrimaryCell names D3's primary cells: an eval with some routes.
type PrimaryCell struct {
	Eval   string   `yaml:"eval"`
	Routes []string `yaml:"routes"` // route names, or "reasoning" / "all"
}

// Thresholds of the decision rules D1-D4, as fractions or percentage points.
type Thresholds struct {
	D1aRecommendRaise  *float64 `yaml:"d1a_raise_max_tokens"`   // truncated_empty share ≥ this in any cell → raise max_tokens
	D1aRecommendHelper *float64 `yaml:"d1a_helper_unscored"`    // ≥ this in any cell → helper routes truncation unscored
	D1bNonRefusal      *float64 `yaml:"d1b_non_refusal"`        // share of re-run truncations that become non-refusals
	D2FormDisagreement *float64 `yaml:"d2_form_disagreement"`   // share of refusing samples with differing forms
	D3MinDeltaPP       *float64 `yaml:"d3_min_delta_pp"`        // percentage points
	D4PassRate         *float64 `yaml:"d4_pass_rate"`           // judge passes a non-answer more often than this
	D4RepeatDisagree   *float64 `yaml:"d4_repeat_disagreement"` // repeats differ for more than this share
	Interval           *float64 `yaml:"interval"`               // confidence level of intervals, e.g. 0.95
}

// ThresholdKeys are the keys of thresholds: in data/study.yaml, in the order
// of Thresholds: its yaml tags, the one place they are written.
func ThresholdKeys() []string {
	ty := reflect.TypeFor[Thresholds]()
	keys := make([]string, 0, ty.NumField())
	for i := range ty.NumField() {
		tag, _, _ := strings.Cut(ty.Field(i).Tag.Get("yaml"), ",")
		keys = append(keys, tag)
	}
	return keys
}

// Value is the manifest's value for a thresholds: key, so a rule names its
// threshold as data/study.yaml does.
func (t Thresholds) Value(key string) (float64, error) {
	v := reflect.ValueOf(t)
	for i, k := range ThresholdKeys() {
		if k == key {
			if p, ok := v.Field(i).Interface().(*float64); ok && p != nil {
				return *p, nil
			}
			return 0, fmt.Errorf("the manifest has no thresholds: %s", key)
		}
	}
	return 0, fmt.Errorf("%s is not a manifest threshold (thresholds: %s)", key, strings.Join(ThresholdKeys(), ", "))
}

// Bootstrap settings; the same seed gives the same intervals.
type Bootstrap struct {
	Seed      uint64 `yaml:"seed"`
	Resamples int    `yaml:"resamples"`
}

// Arms holds the settings of the re-run arms.
type Arms struct {
	Wide    WideArm    `yaml:"wide"`
	Control ControlArm `yaml:"control"`
}

// WideArm re-runs every truncated_empty reply once with more room.
type WideArm struct {
	MaxTokens int `yaml:"max_tokens"`
}

// ControlArm re-runs randomly chosen non-answer replies at the same settings.
type ControlArm struct {
	Replies int `yaml:"replies"`
}

// PartC says which judges are tested on which non-answer forms.
type PartC struct {
	Evals map[string]PartCEval `yaml:"evals"`
	Forms []Form               `yaml:"forms"`
}

// PartCEval is the size of one judge's test.
type PartCEval struct {
	Samples int `yaml:"samples"`
	Repeats int `yaml:"repeats"`
}

// Form is a non-answer form substituted for a response in Part C.
type Form struct {
	Name string `yaml:"name"`
	Text string `yaml:"text"`
	// PassesGuard: the form is not whitespace, so it reaches judges
	// guarded by preset_score_on_no_response.
	PassesGuard bool   `yaml:"passes_guard"`
	Source      string `yaml:"source"`
}

// Judges bind an eval's judges for the runs `empties rerun` makes (re-runs,
// Part B and Part C): model roles and task arguments given here replace the
// original log's of the same name. Without an entry a run uses the judges
// its original log records (its task arguments and eval.model_roles).
type Judges struct {
	ModelRoles map[string]string `yaml:"model_roles"`
	TaskArgs   map[string]any    `yaml:"task_args"`
}

// Budget of the study.
type Budget struct {
	CeilingUSD float64 `yaml:"ceiling_usd"`
}

// Error is a manifest or profile error at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Options of Load.
type Options struct {
	// AllowPreregMismatch accepts a pre-registration whose SHA-256 differs
	// from the manifest's (the decision rules may then not be the approved ones).
	AllowPreregMismatch bool
}

// Load reads and validates a manifest and the profiles it names.
func Load(path string, opts Options) (*Manifest, error) {
	m := &Manifest{Path: path}
	doc, err := readYAML(path, m)
	if err != nil {
		return nil, err
	}
	m.Preregistration.line = lineOf(doc, "preregistration")
	for i, n := range items(doc, "routes") {
		m.Routes[i].Line = n.Line
	}
	for i, n := range items(lookup(doc, "mapping"), "rules") {
		m.Mapping.Rules[i].Line = n.Line
	}
	if err := m.validate(doc, opts); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manifest) validate(doc *yaml.Node, opts Options) error {
	fail := func(key string, format string, args ...any) error {
		return &Error{File: m.Path, Line: lineOf(doc, key), Msg: fmt.Sprintf(format, args...)}
	}
	if m.Version != 1 {
		return fail("version", "version must be 1, not %d", m.Version)
	}
	if err := m.checkPrereg(opts); err != nil {
		return err
	}
	profiles, err := loadProfiles(m.dir(), m.ProfileGlobs)
	if err != nil {
		return err
	}
	if len(profiles) == 0 {
		return fail("profiles", "no profiles found for %v", m.ProfileGlobs)
	}
	m.Profiles = map[string]*Profile{}
	for _, name := range m.EvalNames {
		p, ok := profiles[name]
		if !ok {
			return fail("evals", "eval %q has no profile (profiles found: %s)", name, strings.Join(sortedKeys(profiles), ", "))
		}
		m.Profiles[name] = p
	}
	if len(m.EvalNames) == 0 {
		for name, p := range profiles {
			m.Profiles[name] = p
			m.EvalNames = append(m.EvalNames, name)
		}
		sort.Strings(m.EvalNames)
	}
	seen := map[string]bool{}
	for _, r := range m.Routes {
		if r.Name == "" {
			return &Error{File: m.Path, Line: r.Line, Msg: "route without a name"}
		}
		if seen[r.Name] {
			return &Error{File: m.Path, Line: r.Line, Msg: fmt.Sprintf("route %q declared twice", r.Name)}
		}
		seen[r.Name] = true
		// a route's name becomes a log folder of empties rerun (<eval>/<route>)
		if err := guard.CheckNames(r.Name); err != nil {
			return &Error{File: m.Path, Line: r.Line, Msg: fmt.Sprintf("route name %v", err)}
		}
		for _, p := range []struct {
			key string
			usd float64
		}{{"input", r.Prices.Input}, {"output", r.Prices.Output}, {"reasoning", r.Prices.Reasoning}, {"cache_read", r.Prices.CacheRead}} {
			if math.IsNaN(p.usd) || math.IsInf(p.usd, 0) || p.usd < 0 {
				return &Error{File: m.Path, Line: r.Line, Msg: fmt.Sprintf("route %q: prices.%s is %v: a price is a finite number of dollars per million tokens, 0 or more", r.Name, p.key, p.usd)}
			}
		}
	}
	for _, rule := range m.Mapping.Rules {
		if rule.Path == "" {
			return &Error{File: m.Path, Line: rule.Line, Msg: "mapping rule without a path glob"}
		}
		if err := m.checkAssignment(rule.Assignment, rule.Line); err != nil {
			return err
		}
	}
	if err := m.checkAssignment(m.Mapping.Default, lineOf(lookup(doc, "mapping"), "default")); err != nil {
		return err
	}
	for _, c := range m.PrimaryCells {
		if _, ok := m.Profiles[c.Eval]; !ok {
			return fail("primary_cells", "primary cell eval %q is not one of the study's evals", c.Eval)
		}
		for _, r := range c.Routes {
			if r != "all" && r != "reasoning" && !seen[r] {
				return fail("primary_cells", "primary cell route %q is not a declared route (or all / reasoning)", r)
			}
		}
	}
	t := m.Thresholds
	for _, key := range ThresholdKeys() {
		if _, err := t.Value(key); err != nil {
			return &Error{File: m.Path, Line: lineOf(doc, "thresholds"), Msg: "thresholds: " + key + " is missing (every threshold of D1-D4 is declared here, never in code)"}
		}
	}
	if *t.Interval <= 0 || *t.Interval >= 1 {
		return fail("thresholds", "thresholds: interval must be between 0 and 1, e.g. 0.95")
	}
	if m.Bootstrap.Resamples < 100 {
		return fail("bootstrap", "bootstrap: resamples must be at least 100, not %d", m.Bootstrap.Resamples)
	}
	if m.Arms.Wide.MaxTokens <= 0 || m.Arms.Control.Replies <= 0 {
		return fail("arms", "arms: wide.max_tokens and control.replies must be positive")
	}
	for name, e := range m.PartC.Evals {
		if _, ok := m.Profiles[name]; !ok {
			return fail("part_c", "part_c: eval %q is not one of the study's evals", name)
		}
		if e.Samples <= 0 || e.Repeats <= 0 {
			return fail("part_c", "part_c: eval %q needs positive samples and repeats", name)
		}
		// Part C runs the eval's scorer on replayed replies (the replay
		// solver stands in for the eval's solver), so only a judge in the
		// scorer is ever called there.
		if w := m.Profiles[name].Judge.Where; w != vocab.JudgeInScorer {
			return fail("part_c", "part_c: eval %q has its judge in %q (its profile's judge.where), not in the scorer: Part C replaces the solver with the replay solver, so that judge would never run; leave the eval out of part_c", name, w)
		}
	}
	for _, f := range m.PartC.Forms {
		if f.Name == "" {
			return fail("part_c", "part_c: every form needs a name")
		}
		if f.PassesGuard == (strings.TrimSpace(f.Text) == "") {
			return fail("part_c", "part_c: form %q: passes_guard must be true exactly when its text is not blank", f.Name)
		}
	}
	for name := range m.Judges {
		if _, ok := m.Profiles[name]; !ok {
			return fail("judges", "judges: eval %q is not one of the study's evals", name)
		}
	}
	// NaN passes no comparison: !(c > 0) refuses it with the negatives
	if c := m.Budget.CeilingUSD; !(c > 0) || math.IsInf(c, 0) {
		return fail("budget", "budget: ceiling_usd is %v: give the study's ceiling as a finite number of dollars above 0, e.g. 200", c)
	}
	return nil
}

func (m *Manifest) checkAssignment(a Assignment, line int) error {
	if a.Eval != "" {
		if _, ok := m.Profiles[a.Eval]; !ok {
			return &Error{File: m.Path, Line: line, Msg: fmt.Sprintf("eval %q is not one of the study's evals", a.Eval)}
		}
	}
	if a.Route != "" && m.Route(a.Route) == nil {
		return &Error{File: m.Path, Line: line, Msg: fmt.Sprintf("route %q is not declared under routes", a.Route)}
	}
	if a.Arm != "" && !slices.Contains(vocab.Arms, a.Arm) {
		return &Error{File: m.Path, Line: line, Msg: fmt.Sprintf("arm %q: arms are %s", a.Arm, strings.Join(vocab.Arms, ", "))}
	}
	if a.Part != "" && !slices.Contains(vocab.Parts, a.Part) {
		return &Error{File: m.Path, Line: line, Msg: fmt.Sprintf("part %q: parts are %s", a.Part, strings.Join(vocab.Parts, ", "))}
	}
	return nil
}

func (m *Manifest) checkPrereg(opts Options) error {
	p := m.Preregistration
	if p.File == "" || p.SHA256 == "" {
		return &Error{File: m.Path, Line: p.line, Msg: "preregistration: file and sha256 are required (the decision rules must be the approved ones)"}
	}
	data, err := os.ReadFile(m.Resolve(p.File))
	if err != nil {
		return &Error{File: m.Path, Line: p.line, Msg: fmt.Sprintf("preregistration: %v", err)}
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if !strings.EqualFold(got, p.SHA256) && !p.AllowMismatch && !opts.AllowPreregMismatch {
		return &Error{File: m.Path, Line: p.line, Msg: fmt.Sprintf(
			"preregistration: %s has SHA-256 %s, the manifest records %s: the decision rules may not be the approved ones (record amendments separately; override with --allow-prereg-mismatch)", p.File, got, p.SHA256)}
	}
	return nil
}

func (m *Manifest) dir() string { return filepath.Dir(m.Path) }

// Resolve makes a path relative to the manifest absolute.
func (m *Manifest) Resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(m.dir(), p)
}

// Route returns the route of that name, or nil.
func (m *Manifest) Route(name string) *Route {
	for i := range m.Routes {
		if m.Routes[i].Name == name {
			return &m.Routes[i]
		}
	}
	return nil
}

// readYAML decodes a YAML file strictly (unknown keys are errors) into v and
// returns its document node, for the lines of later errors.
func readYAML(path string, v any) (*yaml.Node, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(path, err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{File: path, Msg: "empty file"}
	}
	if err := strictDecode(data, v); err != nil {
		return nil, yamlError(path, err)
	}
	return root.Content[0], nil
}

// strictDecode decodes the original bytes, so yaml's "line N: field x not
// found" errors point into the user's file.
func strictDecode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError turns a yaml.v3 error into an Error at the first line it names,
// in words a user of the file understands.
func yamlError(file string, err error) *Error {
	msgs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	e := &Error{File: file}
	var parts []string
	for _, m := range msgs {
		if g := yamlLine.FindStringSubmatch(m); g != nil {
			if e.Line == 0 {
				e.Line, _ = strconv.Atoi(g[1])
			}
			m = g[2]
		}
		m = typeName.ReplaceAllString(m, "")
		m = strings.Replace(m, "field ", "unknown key ", 1)
		m = strings.Replace(m, " not found", "", 1)
		parts = append(parts, m)
	}
	e.Msg = strings.Join(parts, "; ")
	return e
}

var typeName = regexp.MustCompile(` in type manifest\.[A-Za-z]+`)

func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func lineOf(n *yaml.Node, key string) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

func items(n *yaml.Node, key string) []*yaml.Node {
	s := lookup(n, key)
	if s == nil || s.Kind != yaml.SequenceNode {
		return nil
	}
	return s.Content
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
