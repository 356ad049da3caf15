package manifest

import (
	"path"
	"reflect"
	"regexp"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/vocab"
)

// LogInfo is what assignment reads of a log (from the logs table).
type LogInfo struct {
	Path     string
	Task     string
	TaskArgs string // JSON
	Model    string
	Metadata string // JSON
	Tags     []string
}

// Assigned is a log's place in the study, and how each part was decided.
type Assigned struct {
	Assignment
	How string // e.g. "eval=match route=models arm=default part=default"
}

// Assign places a log: eval metadata or tags first, path globs second, then
// the eval profiles' task match and the routes' model lists, then the
// defaults. An empty Eval means no profile matched.
func (m *Manifest) Assign(l LogInfo) Assigned {
	var meta map[string]any
	if l.Metadata != "" {
		_ = json.Unmarshal([]byte(l.Metadata), &meta)
	}
	from := func(key string) string {
		if key == "" {
			return ""
		}
		if v, ok := meta[key].(string); ok {
			return v
		}
		for _, t := range l.Tags {
			if k, v, ok := strings.Cut(t, "="); ok && k == key {
				return v
			}
		}
		return ""
	}
	var a Assigned
	how := map[string]string{}
	set := func(field *string, name, value, via string) {
		if *field == "" && value != "" {
			*field = value
			how[name] = via
		}
	}
	k := m.Mapping.MetadataKeys
	set(&a.Eval, "eval", from(k.Eval), "metadata")
	set(&a.Route, "route", from(k.Route), "metadata")
	set(&a.Arm, "arm", from(k.Arm), "metadata")
	set(&a.Part, "part", from(k.Part), "metadata")
	for _, r := range m.Mapping.Rules {
		if globMatch(r.Path, l.Path) {
			set(&a.Eval, "eval", r.Eval, "path")
			set(&a.Route, "route", r.Route, "path")
			set(&a.Arm, "arm", r.Arm, "path")
			set(&a.Part, "part", r.Part, "path")
		}
	}
	if a.Eval == "" {
		for _, name := range m.EvalNames {
			if m.Profiles[name].Matches(l.Task, l.TaskArgs) {
				set(&a.Eval, "eval", name, "task")
				break
			}
		}
	}
	if a.Route == "" {
		for _, r := range m.Routes {
			for _, model := range r.Models {
				if model == l.Model {
					set(&a.Route, "route", r.Name, "model")
				}
			}
		}
	}
	d := m.Mapping.Default
	set(&a.Eval, "eval", d.Eval, "default")
	set(&a.Route, "route", d.Route, "default")
	set(&a.Arm, "arm", d.Arm, "default")
	set(&a.Part, "part", d.Part, "default")
	set(&a.Route, "route", l.Model, "log-model")
	set(&a.Arm, "arm", vocab.ArmDefault, "default")
	set(&a.Part, "part", vocab.PartA, "default")
	var parts []string
	for _, n := range []string{"eval", "route", "arm", "part"} {
		if v, ok := how[n]; ok {
			parts = append(parts, n+"="+v)
		}
	}
	a.How = strings.Join(parts, " ")
	return a
}

// Matches reports whether a log's task and task args are this profile's.
// Task names match with or without a registry namespace.
func (p *Profile) Matches(task, taskArgs string) bool {
	ok := false
	for _, t := range p.Match.Task {
		if t == task || path.Base(task) == t || path.Base(t) == path.Base(task) && strings.Contains(t, "/") == strings.Contains(task, "/") {
			ok = true
		}
	}
	if !ok {
		return false
	}
	if len(p.Match.TaskArgs) == 0 {
		return true
	}
	var args map[string]any
	if taskArgs != "" {
		_ = json.Unmarshal([]byte(taskArgs), &args)
	}
	for k, want := range p.Match.TaskArgs {
		got, present := args[k]
		if !present || !sameJSON(got, want) {
			return false
		}
	}
	return true
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return reflect.DeepEqual(a, b)
	}
	var x, y any
	json.Unmarshal(ja, &x)
	json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// globMatch matches a path against a glob where ** spans folders and * and ?
// do not; a glob that does not start with / may match any trailing part.
func globMatch(glob, p string) bool {
	var b strings.Builder
	if !strings.HasPrefix(glob, "/") {
		b.WriteString("(^|/)")
	} else {
		b.WriteString("^")
	}
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					b.WriteString("(.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(p)
}
