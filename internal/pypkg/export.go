// Package pypkg is the Go side of the Python package in python/ (import name
// empties): it writes the data the package ships, the classifier's
// vocabulary and the eval profiles as the Go stages read them, and its tests
// prove the package equal to the Go code (the shipped data has not drifted;
// every sample of the corpora and fixtures gets the same class; the wrapped
// inspect_evals scorers reproduce rescore's P3 on the demo evals).
//
// After a change to the vocabulary or a profile, rewrite the shipped copies:
//
//	go test ./internal/pypkg -run TestShippedData -update
package pypkg

import (
	"bytes"
	"path/filepath"
	"sort"

	json "github.com/goccy/go-json"

	"empties/internal/manifest"
	"empties/internal/vocab"
)

// DataDir is where the package keeps the classifier's vocabulary, and
// StudyDataDir where its study submodule (empties.study) keeps the eval
// profiles, relative to the repository.
const (
	DataDir      = "python/src/empties/_data"
	StudyDataDir = "python/src/empties/study/_data"
)

// Vocabulary returns the "vocabulary" object of `empties schema --format
// json` (vocab.Export), indented, as the package ships it (vocabulary.json).
func Vocabulary() ([]byte, error) {
	raw, err := json.Marshal(vocab.Export())
	if err != nil {
		return nil, err
	}
	return indent(raw)
}

// profile is what the package reads of an eval profile: how P3 routes its
// non-answers and where its score is. Values are the profile's JSON values.
type profile struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	File  string `json:"file"`
	Match struct {
		Task     []string       `json:"task"`
		TaskArgs map[string]any `json:"task_args"`
	} `json:"match"`
	Score struct {
		Key   string `json:"key"`
		Shape string `json:"shape"`
	} `json:"score"`
	Values struct {
		Refusal  json.RawMessage `json:"refusal"`
		Failure  json.RawMessage `json:"failure"`
		NoAnswer json.RawMessage `json:"noanswer"`
	} `json:"values"`
	Judge struct {
		Where   string `json:"where"`
		Guarded bool   `json:"guarded"`
	} `json:"judge"`
	Policy struct {
		Touch string `json:"touch"`
	} `json:"policy"`
	// Reply is the reply rule (vocab.ReplyRules) the eval's class_aware
	// settings classify by: first where its judge is in the solver (a call of
	// the model under test after its reply, so the last generation is the
	// judge's), final elsewhere.
	Reply    string `json:"reply"`
	Headline struct {
		Metric         string  `json:"metric"`
		Scale          float64 `json:"scale"`
		HigherIsBetter bool    `json:"higher_is_better"`
	} `json:"headline"`
}

// Profiles returns every profile of dir (data/profiles/*.yaml), loaded and
// validated by internal/manifest as rescore loads them, as the package ships
// them (profiles.json), sorted by name. Files are named relative to root.
func Profiles(root, dir string) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	out := []profile{}
	for _, f := range files {
		p, err := manifest.LoadProfile(f)
		if err != nil {
			return nil, err
		}
		var e profile
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, err
		}
		e.Name, e.Title, e.Kind, e.File = p.Name, p.Title, p.Kind, filepath.ToSlash(rel)
		e.Match.Task, e.Match.TaskArgs = p.Match.Task, p.Match.TaskArgs
		if e.Match.TaskArgs == nil {
			e.Match.TaskArgs = map[string]any{}
		}
		e.Score.Key, e.Score.Shape = p.Score.Key, p.Score.Shape
		e.Values.Refusal, e.Values.Failure, e.Values.NoAnswer = json.RawMessage(p.Values.Refusal), json.RawMessage(p.Values.Failure), json.RawMessage(p.Values.NoAnswer)
		e.Judge.Where, e.Judge.Guarded = p.Judge.Where, p.Judge.Guarded
		e.Policy.Touch = p.Policy.Touch
		e.Reply = vocab.ReplyFinal
		if p.Judge.Where == vocab.JudgeInSolver {
			e.Reply = vocab.ReplyFirst
		}
		e.Headline.Metric, e.Headline.Scale, e.Headline.HigherIsBetter = p.Headline.Metric, p.Headline.Scale, p.Headline.HigherIsBetter
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	b, err := json.Marshal(struct {
		Note     string    `json:"note"`
		Profiles []profile `json:"profiles"`
	}{"written by `go test ./internal/pypkg -run TestShippedData -update` from data/profiles/*.yaml as internal/manifest loads them; do not edit", out})
	if err != nil {
		return nil, err
	}
	return indent(b)
}

func indent(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
