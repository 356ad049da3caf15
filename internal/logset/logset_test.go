package logset

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// f builds a file from a path and "task/eval/status/run/mtime-seconds".
func f(path, spec string) File {
	p := strings.Split(spec, "/")
	var sec int
	fmt.Sscan(p[4], &sec)
	return File{ID: path, Path: path, TaskID: p[0], EvalID: p[1], Status: p[2], RunID: p[3], Created: t0, ModTime: t0.Add(time.Duration(sec) * time.Second)}
}

func TestResolve(t *testing.T) {
	const (
		a1  = "/l/2026-01-02T10-00-00-00-00_t_T1.eval"
		a2  = "/l/2026-01-02T10-05-00-00-00_t_T1.eval"
		cr  = "/l/2026-01-02T11-00-00-00-00_k_T2.eval"
		rc  = "/l/2026-01-02T11-00-00-00-00_k_T2-recovered.eval"
		mg  = "/l/2026-01-02T12-00-00-00-00_s_T3.eval"
		s0  = "/l/2026-01-02T12-00-00-00-00_s_T3.shards/0/2026-01-02T12-00-01-00-00_s_A.eval"
		s1  = "/l/2026-01-02T12-00-00-00-00_s_T3.shards/1/2026-01-02T12-00-01-00-00_s_B.eval"
		s1b = "/l/2026-01-02T12-00-00-00-00_s_T3.shards/1/2026-01-02T12-00-09-00-00_s_C.eval"
	)
	type want map[string]string // path -> "counted" or "reason<by"
	cases := []struct {
		name  string
		files []File
		want  want
	}{
		{"retry: newest attempt by the name's timestamp, whatever the mtimes",
			[]File{f(a2, "T1/e2/success/x2/1"), f(a1, "T1/e1/error/x1/9")},
			want{a2: "counted", a1: "retried<" + a2}},
		{"recovered copy supersedes the crashed log (same created, same eval)",
			[]File{f(cr, "T2/e3/started/x3/5"), f(rc, "T2/e3/error/x4/1")},
			want{rc: "counted", cr: "recovered<" + rc}},
		{"two copies of one eval: duplicate, ordered by mtime",
			[]File{f("/a/x.eval", "T4/e4/started/r/1"), f("/b/x.eval", "T4/e4/success/r/2")},
			want{"/b/x.eval": "counted", "/a/x.eval": "duplicate<" + "/b/x.eval"}},
		{"no eval ids (before 0.3.95): the same run and created is the same eval",
			[]File{f("/a/x.eval", "T4//success/r/1"), f("/a/x.json", "T4//success/r/2"), f("/a/y.eval", "T4//success/r2/3"), f("/b/z.eval", "T5//success/r/1"), f("/b/z.json", "T5//success/r/2")},
			want{"/a/y.eval": "counted", "/a/x.json": "retried</a/y.eval", "/a/x.eval": "retried</a/y.eval", "/b/z.json": "counted", "/b/z.eval": "duplicate</b/z.json"}},
		{"different tasks both count",
			[]File{f(a1, "T1/e1/success/x1/1"), f(cr, "T2/e3/success/x3/1")},
			want{a1: "counted", cr: "counted"}},
		{"no task id: grouped by eval id",
			[]File{f("/a/old.eval", "/e9/success/p/1"), f("/a/new.eval", "/e9/success/q/2"), f("/a/other.eval", "//success/r/3"), f("/a/other2.eval", "//success/s/4")},
			want{"/a/new.eval": "counted", "/a/old.eval": "duplicate</a/new.eval", "/a/other.eval": "counted", "/a/other2.eval": "counted"}},
		{"finished merged log newer than its shards hides them; older shard attempt superseded by the current",
			[]File{f(mg, "T3/m/success/m/10"), f(s0, "S0/a/success/a/5"), f(s1, "S1/b/error/b/4"), f(s1b, "S1/c/success/c/6")},
			want{mg: "counted", s0: "merged_shards<" + mg, s1: "retried<" + s1b, s1b: "merged_shards<" + mg}},
		{"shard written after the merge stays counted (tie too)",
			[]File{f(mg, "T3/m/success/m/10"), f(s0, "S0/a/success/a/10"), f(s1b, "S1/c/success/c/11")},
			want{mg: "counted", s0: "counted", s1b: "counted"}},
		{"merged log not finished: shards stay",
			[]File{f(mg, "T3/m/started/m/10"), f(s0, "S0/a/success/a/5")},
			want{mg: "counted", s0: "counted"}},
		{"no merged log: shards count",
			[]File{f(s0, "S0/a/success/a/5"), f(s1b, "S1/c/success/c/6")},
			want{s0: "counted", s1b: "counted"}},
		{"merged and its -recovered: both must be finished, the older mtime decides",
			[]File{f(mg, "T3/m/success/m/10"), f(strings.TrimSuffix(mg, ".eval")+"-recovered.eval", "T3/m/success/m2/20"), f(s0, "S0/a/success/a/15")},
			want{mg: "recovered<" + strings.TrimSuffix(mg, ".eval") + "-recovered.eval", strings.TrimSuffix(mg, ".eval") + "-recovered.eval": "counted", s0: "counted"}},
		{"an unsharded retry of the set's task supersedes merged log and shards",
			[]File{f(mg, "T3/m/error/m/10"), f("/l/2026-01-02T13-00-00-00-00_s_T3.eval", "T3/r/success/r/11"), f(s0, "S0/a/success/a/5")},
			want{"/l/2026-01-02T13-00-00-00-00_s_T3.eval": "counted", mg: "retried</l/2026-01-02T13-00-00-00-00_s_T3.eval", s0: "retried</l/2026-01-02T13-00-00-00-00_s_T3.eval"}},
		{"no merged log present: the set's name gives its task",
			[]File{f("/l/2026-01-02T13-00-00-00-00_s_T3.eval", "T3/r/success/r/11"), f(s0, "S0/a/success/a/5")},
			want{"/l/2026-01-02T13-00-00-00-00_s_T3.eval": "counted", s0: "retried</l/2026-01-02T13-00-00-00-00_s_T3.eval"}},
		{"a log in a hidden <k> or directly in .shards is an ordinary log",
			[]File{f("/l/x.shards/a.eval", "T5/e/success/p/1"), f("/l/x.shards/.tmp/b.eval", "T6/e/success/q/1")},
			want{"/l/x.shards/a.eval": "counted", "/l/x.shards/.tmp/b.eval": "counted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Resolve(c.files)
			if len(got) != len(c.files) {
				t.Fatalf("%d verdicts for %d files", len(got), len(c.files))
			}
			for i, v := range got {
				s := v.Status
				if v.Status == Superseded {
					s = v.Reason + "<" + v.SupersededBy
				} else if v.SupersededBy != "" || v.Reason != "" {
					t.Errorf("%s: counted with %+v", c.files[i].Path, v)
				}
				if w := c.want[c.files[i].Path]; s != w {
					t.Errorf("%s: got %s, want %s", c.files[i].Path, s, w)
				}
			}
		})
	}
}

func TestIsCompanionDir(t *testing.T) {
	for name, want := range map[string]bool{
		"2026-01-02T10-00-00-00-00_t_T1.checkpoints": true,
		".checkpoints": false,
		"x.shards":     false,
		"logs":         false,
	} {
		if got := IsCompanionDir(name); got != want {
			t.Errorf("IsCompanionDir(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCreated(t *testing.T) {
	got, ok := created("/x/2024-10-15T12-53-13-04-00_task_abc.eval")
	if !ok || !got.Equal(time.Date(2024, 10, 15, 12, 53, 13, 0, time.UTC)) {
		t.Errorf("created = %v %v", got, ok)
	}
	if _, ok := created("/x/mylog.eval"); ok {
		t.Error("a name without a timestamp parsed")
	}
}

// SkipDir is its exported data and nothing more: a folder is left out when
// its name starts with HiddenPrefix or ends with CompanionSuffix
// (IsCompanionDir's exception, the suffix alone, is a dot folder), which is
// how the Python package's listing reads it from the vocabulary.
func TestSkipDirIsItsData(t *testing.T) {
	for _, name := range []string{"logs", ".buffer", ".checkpoints", "x.checkpoints", "checkpoints",
		"x.checkpoints.d", "x.shards", ".", "a.eval", "2026-01-02T10-00-00-00-00_t_T1.checkpoints"} {
		data := strings.HasPrefix(name, HiddenPrefix) || strings.HasSuffix(name, CompanionSuffix)
		if got := SkipDir(name); got != data {
			t.Errorf("SkipDir(%q) = %v; its exported data (prefix %q, suffix %q) says %v", name, got, HiddenPrefix, CompanionSuffix, data)
		}
	}
}
