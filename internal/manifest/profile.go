package manifest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	json "github.com/goccy/go-json"
	"gopkg.in/yaml.v3"

	"empties/internal/vocab"
)

// Profile is one eval's profile (data/profiles/FORMAT.md).
type Profile struct {
	File     string
	Name     string     `yaml:"name"`
	Title    string     `yaml:"title"`
	Kind     string     `yaml:"kind"` // refusal | capability
	Match    Match      `yaml:"match"`
	Score    ScoreSpec  `yaml:"score"`
	Headline Headline   `yaml:"headline"`
	Refused  string     `yaml:"refused"`
	Values   Values     `yaml:"values"`
	Judge    Judge      `yaml:"judge"`
	Policy   PolicySpec `yaml:"policy"`
	Sources  []string   `yaml:"sources"`
	Notes    string     `yaml:"notes"`
}

// Match selects a profile's logs.
type Match struct {
	Task     []string       `yaml:"task"`
	TaskArgs map[string]any `yaml:"task_args"`
}

// ScoreSpec says where the score is and how a value becomes numbers.
type ScoreSpec struct {
	Key        string            `yaml:"key"`
	Shape      string            `yaml:"shape"`
	Components map[string]string `yaml:"components"`
	Reduce     string            `yaml:"reduce"`
}

// Headline is the eval's headline metric.
type Headline struct {
	Metric         string          `yaml:"metric"`
	Results        ResultsLocation `yaml:"results"`
	ScoredWhen     string          `yaml:"scored_when"`
	Formula        string          `yaml:"formula"`
	EmptyValue     *float64        `yaml:"empty_value"`
	Scale          float64         `yaml:"scale"`
	HigherIsBetter bool            `yaml:"higher_is_better"`
}

// ResultsLocation finds the stored metric in a log's results.
type ResultsLocation struct {
	Score       string `yaml:"score"`
	Metric      string `yaml:"metric"`
	MetricRegex string `yaml:"metric_regex"`
}

// Values are JSON values in the eval's own shape.
type Values struct {
	Refusal  string `yaml:"refusal"`
	Failure  string `yaml:"failure"`
	NoAnswer string `yaml:"noanswer"`
}

// Judge describes the eval's judge.
type Judge struct {
	Where   string `yaml:"where"` // scorer | solver | none
	Guarded bool   `yaml:"guarded"`
	Pass    string `yaml:"pass"`
}

// PolicySpec limits which replies the policies re-route.
type PolicySpec struct {
	Touch string `yaml:"touch"` // non_answer (default) | no_text_no_tool
}

var identRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// reservedColumns are the columns beside the components where formulas and
// predicates are evaluated.
var reservedColumns = map[string]bool{"log_id": true, "eval": true, "route": true, "arm": true, "policy": true,
	"sample_id": true, "epoch": true, "unscored": true, "value_json": true, "value_kind": true, "value_float": true,
	"value_str": true, "class": true, "reason": true}

// ComponentNames returns the component names, sorted.
func (p *Profile) ComponentNames() []string {
	return sortedKeys(p.Score.Components)
}

// ScoredWhen returns the scored_when predicate (default: all components set).
func (p *Profile) ScoredWhen() string {
	if p.Headline.ScoredWhen != "" {
		return p.Headline.ScoredWhen
	}
	var parts []string
	for _, c := range p.ComponentNames() {
		parts = append(parts, c+" IS NOT NULL")
	}
	return strings.Join(parts, " AND ")
}

func loadProfiles(dir string, globs []string) (map[string]*Profile, error) {
	out := map[string]*Profile{}
	for _, g := range globs {
		files, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			p, err := LoadProfile(f)
			if err != nil {
				return nil, err
			}
			if prev, ok := out[p.Name]; ok {
				return nil, &Error{File: f, Msg: fmt.Sprintf("profile name %q is also used by %s", p.Name, prev.File)}
			}
			out[p.Name] = p
		}
	}
	return out, nil
}

// LoadProfile reads and validates one profile file.
func LoadProfile(path string) (*Profile, error) {
	p := &Profile{File: path}
	doc, err := readYAML(path, p)
	if err != nil {
		return nil, err
	}
	fail := func(n *yaml.Node, key, format string, args ...any) error {
		return &Error{File: path, Line: lineOf(n, key), Msg: fmt.Sprintf(format, args...)}
	}
	score, headline, values := lookup(doc, "score"), lookup(doc, "headline"), lookup(doc, "values")
	switch {
	case p.Name == "" || !identRe.MatchString(p.Name):
		return nil, fail(doc, "name", "name must be a lower-case identifier, not %q", p.Name)
	case !slices.Contains(vocab.EvalKinds, p.Kind):
		return nil, fail(doc, "kind", "kind must be refusal or capability, not %q", p.Kind)
	case len(p.Match.Task) == 0:
		return nil, fail(doc, "match", "match.task must name at least one task")
	case p.Score.Key == "":
		return nil, fail(score, "key", "score.key is required")
	case len(p.Score.Components) == 0:
		return nil, fail(score, "components", "score.components must define at least one component")
	case p.Score.Reduce != "" && p.Score.Reduce != "mean":
		return nil, fail(score, "reduce", "score.reduce must be mean (the only reducer supported)")
	case p.Headline.Formula == "":
		return nil, fail(headline, "formula", "headline.formula is required")
	case p.Headline.Scale <= 0:
		return nil, fail(headline, "scale", "headline.scale must be the metric's range (1 for 0-1, 100 for 0-100, 5 for 0-5), not %v", p.Headline.Scale)
	case p.Headline.Results.Score == "" || (p.Headline.Results.Metric == "") == (p.Headline.Results.MetricRegex == ""):
		return nil, fail(headline, "results", "headline.results needs score and exactly one of metric, metric_regex")
	}
	if p.Kind == vocab.EvalRefusal && p.Refused == "" {
		return nil, fail(doc, "kind", "a refusal eval must say when its scorer counts a refusal: refused: <SQL over the components>")
	}
	for name := range p.Score.Components {
		if !identRe.MatchString(name) {
			return nil, fail(score, "components", "component name %q must be a lower-case identifier", name)
		}
		if reservedColumns[name] || strings.HasPrefix(name, "__") {
			return nil, fail(score, "components", "component name %q is a column of the policy_scores rows formulas run over; choose another name", name)
		}
	}
	if p.Headline.Results.MetricRegex != "" {
		if _, err := regexp.Compile(p.Headline.Results.MetricRegex); err != nil {
			return nil, fail(headline, "results", "metric_regex: %v", err)
		}
	}
	for key, v := range map[string]string{"refusal": p.Values.Refusal, "failure": p.Values.Failure, "noanswer": p.Values.NoAnswer} {
		if v == "" {
			return nil, fail(values, key, "values.%s is required (a JSON value in the eval's shape)", key)
		}
		if !json.Valid([]byte(v)) {
			return nil, fail(values, key, "values.%s is not valid JSON: %s (quote strings: '\"I\"')", key, v)
		}
	}
	if p.Judge.Where != "" && !slices.Contains(vocab.JudgeWheres, p.Judge.Where) {
		return nil, fail(lookup(doc, "judge"), "where", "judge.where must be scorer, solver or none")
	}
	switch p.Policy.Touch {
	case "":
		p.Policy.Touch = "non_answer"
	case "non_answer", "no_text_no_tool":
	default:
		return nil, fail(lookup(doc, "policy"), "touch", "policy.touch must be non_answer or no_text_no_tool")
	}
	if p.Judge.Where == "" {
		p.Judge.Where = vocab.NoJudge
	}
	return p, nil
}
