package evallog

import "strings"

// The member names openZip tells apart (§1.4), parsed by hand: they were
// regular expressions (names_test.go keeps them, and holds these to them on
// every fixture's and corpus's names and by FuzzMemberNames), whose
// backtracking over every member name was a fifth of opening a small .eval.
//
// A sample is samples/<id>_epoch_<n>.json; a chunked layout's part is
// samples/<id>_epoch_<n>/ followed by skeleton.json, metadata.json,
// messages|events|calls|attachments/<k>.json or events/stats|uuids.json; a
// journal's summaries are _journal/summaries/<k>.json. An id is not empty
// and holds no line feed (what the expressions' ".+" took), and may hold
// "/"; numbers are ASCII digits.

// sampleName splits samples/<id>_epoch_<n>.json into its id and epoch: the
// id is everything before the last "_epoch_", which only the epoch's digits
// and ".json" may follow.
func sampleName(name string) (id, epoch string, ok bool) {
	rest, ok := strings.CutPrefix(name, "samples/")
	if !ok {
		return "", "", false
	}
	if rest, ok = strings.CutSuffix(rest, ".json"); !ok {
		return "", "", false
	}
	return idEpoch(rest)
}

// idEpoch splits <id>_epoch_<n>. The digits are the whole run that ends s:
// the byte before a shorter run is a digit, not the "_" of "_epoch_".
func idEpoch(s string) (id, epoch string, ok bool) {
	d := len(s)
	for d > 0 && '0' <= s[d-1] && s[d-1] <= '9' {
		d--
	}
	if d == len(s) {
		return "", "", false
	}
	id, ok = strings.CutSuffix(s[:d], "_epoch_")
	if !ok || id == "" || strings.IndexByte(id, '\n') >= 0 {
		return "", "", false
	}
	return id, s[d:], true
}

// chunkedPartShell returns, for a part of the chunked layout, the folder
// whose shell (<folder>/sample.json) tells the layout.
func chunkedPartShell(name string) (string, bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", false
	}
	dir, file := name[:i], name[i+1:]
	if file != "skeleton.json" && file != "metadata.json" {
		j := strings.LastIndexByte(dir, '/')
		if j < 0 {
			return "", false
		}
		switch seq := dir[j+1:]; {
		case (seq == "messages" || seq == "events" || seq == "calls" || seq == "attachments") && isNumberJSON(file):
		case seq == "events" && (file == "stats.json" || file == "uuids.json"):
		default:
			return "", false
		}
		dir = dir[:j]
	}
	rest, ok := strings.CutPrefix(dir, "samples/")
	if !ok {
		return "", false
	}
	if _, _, ok := idEpoch(rest); !ok {
		return "", false
	}
	return dir, true
}

// journalSummaryIndex returns k of _journal/summaries/<k>.json.
func journalSummaryIndex(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "_journal/summaries/")
	if !ok || !isNumberJSON(rest) {
		return "", false
	}
	return rest[:len(rest)-len(".json")], true
}

// isNumberJSON reports whether s is <k>.json, k one or more ASCII digits.
func isNumberJSON(s string) bool {
	k, ok := strings.CutSuffix(s, ".json")
	if !ok || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	return true
}
