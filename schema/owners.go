package schema

import "sort"

// owners name the one stage that writes each table. replies has one
// documented second writer: `empties classify`, whose explicit recompute of
// the classes rewrites class, class_rule and non_answer in place.
var owners = map[string]string{
	"logs":            "ingest",
	"replies":         "ingest",
	"scores":          "ingest",
	"model_calls":     "ingest",
	"ingest_errors":   "ingest",
	"log_assignments": "rescore",
	"policy_scores":   "rescore",
	"judge_verdicts":  "rescore",
	"headlines":       "rescore",
	"study_routes":    "rescore",
	"study_evals":     "rescore",
	"primary_cells":   "rescore",
	"reply_outcomes":  "rescore",
	"planned_reruns":  "select",
	"reruns":          "rescore",
	"judge_tests":     "rescore",
	"decisions":       "decide",
	"exposure":        "exposure",
	"p0_check":        "rescore",
}

// Owner is the stage that writes a table ("" for a table schema/ does not
// declare, such as an analysis output, which analyze owns).
func Owner(table string) string { return owners[table] }

// FromLogs reports whether a table's rows derive from the ingested logs:
// every table but exposure, which reads inspect_evals' source, not the logs.
func FromLogs(table string) bool { return Owner(table) != "exposure" }

// KeptWhenRepliesChange lists the tables that stay when ingest writes new
// rows or classify recomputes the classes: ingest's own, and those not
// derived from the logs. Every other table of the dataset (the analysis
// outputs too) was computed from the old rows and is dropped.
func KeptWhenRepliesChange() []string {
	var out []string
	for t, stage := range owners {
		if stage == "ingest" || !FromLogs(t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
