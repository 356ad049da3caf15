package ingest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// expectFile is testdata/logs/EXPECT.json: facts about every fixture log,
// read back by inspect_ai's own read_eval_log when the fixtures were written
// (scripts/fixtures/ingest_fixtures.py).
type expectFile map[string]struct {
	Status         string          `json:"status"`
	Version        int             `json:"version"`
	Task           string          `json:"task"`
	Model          string          `json:"model"`
	SamplesCount   int             `json:"samples_count"`
	SummariesCount *int            `json:"summaries_count"`
	Tags           []string        `json:"tags"`
	Samples        []expectSample  `json:"samples"`
	Winning        json.RawMessage `json:"winning"`
}

type expectSample struct {
	ID              json.RawMessage `json:"id"`
	IDType          string          `json:"id_type"`
	Epoch           int             `json:"epoch"`
	FirstModelReply *string         `json:"first_model_reply"`
	// Reply is the reply by design rule 1, as scripts/difftest picks it in
	// inspect_ai's objects (fixtures written since the rule; older entries
	// have only first_model_reply, which is then the same event).
	Reply *struct {
		Source     string   `json:"source"`
		Text       string   `json:"text"`
		StopReason *string  `json:"stop_reason"`
		Statuses   []string `json:"statuses"`
	} `json:"reply"`
	OutputCompletion *string `json:"output_completion"`
	Error            *string `json:"error"`
	Limit            *struct {
		Type string `json:"type"`
	} `json:"limit"`
	MUTEvents   []expectEvent `json:"model_under_test_events"`
	JudgeEvents []expectEvent `json:"judge_events"`
	Scores      map[string]struct {
		Value       json.RawMessage `json:"value"`
		Answer      *string         `json:"answer"`
		Explanation *string         `json:"explanation"`
		Reason      *string         `json:"reason"`
	} `json:"scores"`
}

type expectEvent struct {
	Model         string  `json:"model"`
	Role          *string `json:"role"`
	Completion    string  `json:"completion"`
	StopReason    string  `json:"stop_reason"`
	InputMessages int     `json:"input_messages"`
}

func (s expectSample) idText() string {
	var str string
	if json.Unmarshal(s.ID, &str) == nil {
		return str
	}
	return string(s.ID)
}

// Every fixture written by the real inspect_ai ingests, and each row says
// what inspect_ai's own reader said of the same sample.
func TestFixtureLogs(t *testing.T) {
	root := testutil.Path(t, "testdata", "logs")
	raw, err := os.ReadFile(filepath.Join(root, "EXPECT.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expect expectFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&expect); err != nil {
		t.Fatal(err)
	}
	dir, _, stderr, err := runIngest(t, root)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	for file, e := range expect {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(root, file)
			logs := testutil.Query(t, dir, `SELECT status, version, task, model, sample_count, summary_count, log_id, array_to_string(tags, ',') FROM logs WHERE path = ?`, path)
			if len(logs) != 1 {
				t.Fatalf("logs rows: %d", len(logs))
			}
			l := logs[0]
			summaries := "NULL"
			if e.SummariesCount != nil && strings.HasSuffix(file, ".eval") {
				summaries = strconv.Itoa(*e.SummariesCount)
			}
			want := []string{e.Status, strconv.Itoa(e.Version), e.Task, e.Model, strconv.Itoa(e.SamplesCount), summaries}
			if !reflect.DeepEqual(l[:6], want) {
				t.Errorf("log: got %v, want %v", l[:6], want)
			}
			if got := l[7]; got != strings.Join(e.Tags, ",") {
				t.Errorf("tags %q, want %q (the last header.json wins)", got, strings.Join(e.Tags, ","))
			}
			logID := l[6]
			for _, s := range e.Samples {
				checkSample(t, dir, logID, s)
			}
		})
	}
}

func checkSample(t *testing.T, dir, logID string, s expectSample) {
	t.Helper()
	id := s.idText()
	name := fmt.Sprintf("sample %s epoch %d", id, s.Epoch)
	rows := testutil.Query(t, dir, `SELECT sample_id_type, text, coalesce(final_completion, 'NULL'), coalesce(sample_error, 'NULL'),
	    coalesce(sample_limit, 'NULL'), mut_calls, judge_calls, coalesce(stop_reason, 'NULL'), reply_source,
	    (SELECT coalesce(array_to_string(list(call_status ORDER BY call_index), ','), '') FROM model_calls c
	      WHERE c.log_id = r.log_id AND c.sample_id = r.sample_id AND c.epoch = r.epoch)
	  FROM replies r WHERE log_id = ? AND sample_id = ? AND epoch = ?`, logID, id, s.Epoch)
	if len(rows) != 1 {
		t.Errorf("%s: %d reply rows", name, len(rows))
		return
	}
	r := rows[0]
	if r[0] != s.IDType {
		t.Errorf("%s: id type %s, want %s", name, r[0], s.IDType)
	}
	if rep := s.Reply; rep != nil {
		stop := "NULL"
		if rep.StopReason != nil {
			stop = *rep.StopReason
		}
		if got, want := []string{r[8], r[1], r[7], r[9]}, []string{rep.Source, rep.Text, stop, strings.Join(rep.Statuses, ",")}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: reply source/text/stop reason/call statuses %q, want %q", name, got, want)
		}
	} else if s.FirstModelReply != nil && r[1] != *s.FirstModelReply {
		t.Errorf("%s: reply text %q, want the first model-under-test reply %q", name, r[1], *s.FirstModelReply)
	}
	if s.OutputCompletion != nil && r[2] != *s.OutputCompletion {
		t.Errorf("%s: final completion %q, want %q", name, r[2], *s.OutputCompletion)
	}
	if (s.Error != nil) != (r[3] != "NULL") {
		t.Errorf("%s: sample error %q, expected error %v", name, r[3], s.Error)
	}
	if s.Limit != nil && r[4] != s.Limit.Type {
		t.Errorf("%s: limit %s, want %s", name, r[4], s.Limit.Type)
	}
	if r[5] != strconv.Itoa(len(s.MUTEvents)) || r[6] != strconv.Itoa(len(s.JudgeEvents)) {
		t.Errorf("%s: model-under-test/judge calls %s/%s, want %d/%d", name, r[5], r[6], len(s.MUTEvents), len(s.JudgeEvents))
	}
	if s.Reply == nil && len(s.MUTEvents) > 0 && r[7] != s.MUTEvents[0].StopReason {
		t.Errorf("%s: stop reason %s, want %s", name, r[7], s.MUTEvents[0].StopReason)
	}

	calls := testutil.Query(t, dir, `SELECT kind, model, coalesce(role, 'NULL'), text, input_messages, coalesce(stop_reason, 'NULL')
	  FROM model_calls WHERE log_id = ? AND sample_id = ? AND epoch = ? AND kind <> 'other' ORDER BY call_index`, logID, id, s.Epoch)
	var want [][]string
	mut, judge := 0, 0
	for _, c := range calls {
		var e expectEvent
		if c[0] == "judge" && judge < len(s.JudgeEvents) {
			e = s.JudgeEvents[judge]
			judge++
		} else if c[0] == "model_under_test" && mut < len(s.MUTEvents) {
			e = s.MUTEvents[mut]
			mut++
		} else {
			t.Errorf("%s: unexpected %s call %v", name, c[0], c)
			continue
		}
		role := "NULL"
		if e.Role != nil {
			role = *e.Role
		}
		want = append(want, []string{c[0], e.Model, role, e.Completion, strconv.Itoa(e.InputMessages), e.StopReason})
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("%s: model calls\n got %q\nwant %q", name, calls, want)
	}

	for scorer, sc := range s.Scores {
		got := testutil.Query(t, dir, `SELECT value_json, coalesce(answer, 'NULL'), coalesce(explanation, 'NULL'), coalesce(reason, 'NULL')
		  FROM scores WHERE log_id = ? AND sample_id = ? AND epoch = ? AND scorer = ?`, logID, id, s.Epoch, scorer)
		if len(got) != 1 {
			t.Errorf("%s: scorer %s: %d rows", name, scorer, len(got))
			continue
		}
		if !sameJSON(got[0][0], sc.Value) {
			t.Errorf("%s: scorer %s value %s, want %s", name, scorer, got[0][0], sc.Value)
		}
		for i, w := range []*string{sc.Answer, sc.Explanation, sc.Reason} {
			if w != nil && got[0][i+1] != *w {
				t.Errorf("%s: scorer %s field %d = %q, want %q", name, scorer, i+1, got[0][i+1], *w)
			}
		}
	}
}

// sameJSON compares a stored value (Python's JSON, with NaN literals) with
// EXPECT.json's (non-finite numbers as strings).
func sameJSON(stored string, want json.RawMessage) bool {
	norm := func(s string) any {
		for tok, str := range map[string]string{"-Infinity": `"-Infinity"`, "Infinity": `"Infinity"`, "NaN": `"NaN"`} {
			if s == tok {
				s = str
			}
		}
		s = strings.NewReplacer(": NaN", `: "NaN"`, ":NaN", `:"NaN"`, "-Infinity", `"-Infinity"`).Replace(s)
		var v any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return s
		}
		return canon(v)
	}
	return reflect.DeepEqual(norm(stored), norm(string(want)))
}

func canon(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return x.String()
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = canon(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canon(e)
		}
	}
	return v
}

// The call whose output is the reply keeps the prompt it answers (the last
// user message sent, from an inline input, a message pool or an attachment),
// as judge calls keep theirs; other calls of the model under test keep none.
// Fixtures written by the real inspect_ai.
func TestReplyCallKeepsItsPrompt(t *testing.T) {
	dir, _, stderr, err := runIngest(t, testutil.Path(t, "testdata", "logs", "grader-role.eval"),
		testutil.Path(t, "testdata", "logs", "pools-tools.eval"), testutil.Path(t, "testdata", "logs", "attachments.eval"))
	if err != nil {
		t.Fatal(err, stderr)
	}
	rows := testutil.Query(t, dir, `SELECT parse_filename(l.path), m.sample_id, m.call_index, m.kind, m.is_reply, coalesce(left(m.prompt_text, 50), 'NULL')
	  FROM model_calls m JOIN logs l USING (log_id) WHERE m.kind = 'model_under_test' ORDER BY ALL`)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, " | "))
	}
	want := []string{
		"attachments.eval | 1 | 0 | model_under_test | true | Please answer the following geography question in ",
		"grader-role.eval | 1 | 0 | model_under_test | true | What is 2+2?",
		"grader-role.eval | 2 | 0 | model_under_test | true | What is 3+3?",
		"grader-role.eval | 3 | 0 | model_under_test | true | What is 4+4?",
		"pools-tools.eval | 1 | 0 | model_under_test | true | Use the add tool to add 2 and 3.",
		"pools-tools.eval | 1 | 1 | model_under_test | false | NULL",
		"pools-tools.eval | 2 | 0 | model_under_test | true | Use the add tool to add 20 and 22.",
		"pools-tools.eval | 2 | 1 | model_under_test | false | NULL",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("model-under-test calls:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
