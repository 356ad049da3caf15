// Package ingestcmd is the first stage's command: it reads Inspect logs into
// the logs, replies, scores, model_calls and ingest_errors tables
// (internal/ingest), drawing progress on a terminal and printing a summary.
package ingestcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/classify"
	"empties/internal/cliutil"
	"empties/internal/evallog"
	"empties/internal/ingest"
	"empties/internal/logset"
	"empties/internal/numfmt"
	"empties/internal/store"
)

// Options configure the command: the ingest.Config its flags give, and how
// progress is shown. Run sets Config.Progress and Config.Log itself.
type Options struct {
	ingest.Config
	ProgressMode string // --progress: auto (on a terminal), always, never, json (a JSON object a line, for programs)
}

// The flags run shares with ingest.
const (
	ProgressFlag    = "progress"
	AllAttemptsFlag = "all-attempts"
)

// SharedFlags are --progress and --all-attempts, which run takes too.
func SharedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: ProgressFlag, Value: "auto", Usage: "progress display: auto (on a terminal), always, never, or json (one JSON object a line on stderr: {\"progress\":\"ingest\",\"files\":3,\"total\":29,\"samples\":120,\"bytes\":52000}, for a program drawing its own bar)"},
		&cli.BoolFlag{Name: AllAttemptsFlag, Usage: "count every log file: older attempts, crashed logs beside their recovered copy and merged shards too (default: inspect_ai's rules, newest attempt per task)"},
	}
}

// Command returns the `ingest` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read Inspect logs into Parquet tables",
		ArgsUsage: "PATH...",
		Description: `Reads every .eval and .json log under the given files and folders
(recursively) into the tables of the dataset --out DIR:

   logs, replies, scores, model_calls, ingest_errors

each readable with read_parquet('DIR/current/<table>/*.parquet'), plus
DIR/empties.duckdb holding one view per table. Every log era is read: zstd,
deflate or stored members, ZIP64, duplicate members (the last wins), running
or killed logs (no header.json), log versions 1-3, event pools and
attachments. Files that are not regular (FIFOs, sockets, devices) and .json
files in a folder that are not logs are skipped, each named in the summary; a
.json file named on the command line that is not a log stops the run before
anything is written (exit 2).

A folder is read as inspect_ai lays it out: per eval.task_id the newest
attempt counts (an eval set's retry, a -recovered copy of a crashed log), and
shard logs (<name>.shards/<k>/) that their finished merged log covers are
superseded by it; <name>.checkpoints/ folders are not read. Every file keeps
its row in logs, with set_status (counted or superseded), superseded_by and
superseded_reason, and every sample its rows; a superseded log's rows are
counted by no measure. --all-attempts counts every file.

DIR must be new, empty, or a dataset empties wrote (it holds
empties-dataset.json); any other folder is refused and left as it was. The
tables hold the rows of exactly the given logs. Into a dataset an ingest
already wrote, only files that are new or changed are read: a file whose
path, size and modification time match its logs row is unchanged and not
opened; one whose size or time differ is hashed, and counts as changed only
if its SHA-256 differs too. The rows of changed files and of files no longer
found are removed, the others kept, the log set decided again over them all,
and the summary says: new N, changed N, unchanged N, removed N. A file that
could not be read is tried again; a file read by another empties version is
read again. --full reads every file (use it if a tool rewrites logs keeping
their size and time). When any row changes, the later stages' tables in DIR
(computed from the old rows) are removed: run rescore, analyze and decide
again; when none does, they are kept. A file that cannot be read is reported
with the member at fault and left out whole; the others go on, and the exit
code is 1. A sample that the log's summaries list without a member is
reported (ingest_errors names the sample and the member expected) and the
exit code is 1; the log's other samples are read. The new tables replace
the old in one atomic switch: a killed or interrupted run leaves the
previous tables as they were.

A dataset grown by many incremental runs keeps its tables in few files: once
replies, scores or model_calls holds more than 8 part files of fewer than
4,194,304 rows, the run rewrites those parts together, with their rows in the
order a full ingest writes them (no log is read again), in the same atomic
switch, and the summary says "compacted N part files into M". --compact
rewrites every part of those tables now; a table all of whose parts are
rewritten holds the files a full ingest of the same logs writes, byte for
byte.

The reply of each sample is the first completed generation of the model
under test: placeholders (pending events) and failed attempts that were
retried are skipped, and where the model made no call through Inspect's
model API, sample.output is used unless it is a judge's; replies.reply_source
says which (README "How the reply is chosen").

A PATH may be an s3://bucket/prefix/ URL (or one object's): the prefix is
read as a folder, with credentials, region and endpoint from the standard AWS
environment and configuration (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_PROFILE, AWS_REGION; AWS_ENDPOINT_URL for an S3-compatible server, then
addressed by path). logs.path keeps the URL. Each object is downloaded about
once, into a temporary file in $TMPDIR as large as the object, removed when
the log is done. A URL that cannot be listed is an ingest_errors row naming
it; the other paths are still read.

Memory is bounded by what the logs declare: a member is inflated only up to
the size the zip's central directory gives it (one byte more is an error),
a member larger than --max-member-mb (or a .json sample or header larger
than it) is refused by name, and so is a member of more than 256 MiB that
declares more than 1,000 bytes per compressed byte (real logs stay under
50:1). A sample of 8 MiB or more is decoded from its member's stream,
keeping only what the tables read; a smaller one is read whole. The texts
kept still cost memory: a huge reply about four times its size while it is
written (a 200 MB reply: 750 MiB peak RSS). Lower the cap on a small machine,
raise it only for a log that needs it.

Examples:
   empties ingest logs/ --out data/study
   empties ingest logs/ --out data/study          # again: reads only new and changed logs
   empties ingest logs/ --out data/study --full   # reads every log again
   empties ingest logs/ --out data/study --compact   # rewrites the part files as a full ingest writes them
   empties ingest run1.eval run2.eval --out /tmp/two-runs
   empties ingest logs/ --out data/study --workers 8
   empties ingest logs/ --out data/archive --compression zstd   # smaller files, slower
   empties ingest logs/ --out data/every-attempt --all-attempts  # count retried attempts too
   empties ingest huge.eval --out data/huge --max-member-mb 6144   # one 5 GB sample
   AWS_ENDPOINT_URL=http://127.0.0.1:7070 empties ingest s3://logs/study/ --out data/study`,
		Flags: append([]cli.Flag{
			cliutil.NewOutFlag("dataset `DIR` to write"),
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Usage: "parallel sample decoders (0 = one per CPU)"},
		}, append(SharedFlags(),
			&cli.IntFlag{Name: "max-member-mb", Value: evallog.DefaultMaxMember >> 20, Usage: "largest zip member or .json sample read, in `MiB` inflated; a log with a larger one fails, naming it"},
			&cli.BoolFlag{Name: "full", Usage: "read every log file again, even those the dataset holds unchanged (default: only new and changed files)"},
			&cli.StringFlag{Name: "compression", Value: store.DefaultCompression, Usage: "Parquet page compression of the files this run writes: " + strings.Join(store.Compressions, ", ") + " (zstd: about a quarter smaller, twice the CPU time to write; with --full or --compact every file)"},
			&cli.BoolFlag{Name: "compact", Usage: fmt.Sprintf("rewrite every part file of replies, scores and model_calls into parts in the order a full ingest writes, reading no log again (default: a table's small parts, once it holds more than %d)", store.MaxSmallParts)},
		)...),
		Arguments: []cli.Argument{&cli.StringArgs{Name: "paths", Min: 0, Max: -1}},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts := Options{Config: ingest.Config{Paths: c.StringArgs("paths"), Out: c.String(cliutil.OutFlag), Workers: c.Int("workers"), Compression: c.String("compression"),
				AllAttempts: c.Bool(AllAttemptsFlag), Full: c.Bool("full"), Compact: c.Bool("compact"), MaxMemberBytes: int64(c.Int("max-member-mb")) << 20},
				ProgressMode: c.String(ProgressFlag)}
			return Run(ctx, opts, c.Root().Writer, c.Root().ErrWriter)
		},
	}
}

// Validate checks the options before any work.
func (opts Options) Validate() error {
	if len(opts.Paths) == 0 {
		return cliutil.Usagef("ingest: no PATH given; name log files or folders, e.g. `empties ingest logs/ --out data/study`")
	}
	if opts.Out == "" {
		return cliutil.Required("ingest", "--out DIR")
	}
	if opts.Workers < 0 {
		return cliutil.Usagef("ingest: --workers must be 0 (one per CPU) or more, not %d", opts.Workers)
	}
	switch opts.ProgressMode {
	case "", "auto", "always", "never", "json":
	default:
		return cliutil.Usagef("ingest: --progress must be auto, always, never or json, not %q", opts.ProgressMode)
	}
	if opts.MaxMemberBytes < 0 {
		return cliutil.Usagef("ingest: --max-member-mb must be positive, not %d", opts.MaxMemberBytes>>20)
	}
	if opts.Compression != "" && !slices.Contains(store.Compressions, opts.Compression) {
		return cliutil.Usagef("ingest: --compression must be one of %s, not %q", strings.Join(store.Compressions, ", "), opts.Compression)
	}
	return nil
}

// Run ingests opts.Paths into opts.Out, printing the summary on stdout and
// each error as it is found, and the progress, on stderr.
func Run(ctx context.Context, opts Options, stdout, stderr io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	cfg := opts.Config
	cfg.Progress, cfg.Log = newProgress(stderr, opts.ProgressMode), stderr
	res, err := ingest.Ingest(ctx, cfg)
	if err != nil {
		return err
	}
	printResult(stdout, res)
	return res.Partial()
}

// printResult prints what a run did: the summary, an incremental run's
// counts and compaction, and the log set.
func printResult(w io.Writer, res *ingest.Result) {
	printSummary(w, res)
	if res.Incremental != nil {
		printIncremental(w, res.Incremental)
		printCompaction(w, res.Compacted)
		switch {
		case !res.Committed:
			fmt.Fprintf(w, "nothing changed: the dataset is as it was\n")
		case len(res.Dropped) > 0:
			fmt.Fprintf(w, "removed the tables computed from the old rows (%s): run rescore, analyze and decide again\n", strings.Join(res.Dropped, ", "))
		}
	}
	printSetSummary(w, res.Set, res.AllAttempts)
}

func printSummary(w io.Writer, s *ingest.Result) {
	ok := s.Files - s.Failed
	one, many := "file", "files"
	if s.Incremental != nil {
		one, many = "new or changed file", "new or changed files"
	}
	fmt.Fprintf(w, "ingested %d of %s, %s, %.1f MB in %.1fs", ok, numfmt.Plural(int64(s.Files), one, many),
		numfmt.Plural(int64(s.Samples), "sample", "samples"), float64(s.Bytes)/1e6, s.Elapsed.Seconds())
	if s.Failed > 0 {
		fmt.Fprintf(w, "; %d failed", s.Failed)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, "; %s skipped", numfmt.Plural(int64(s.Skipped), "file", "files"))
	}
	fmt.Fprintln(w)
	if s.Fetched.Requests > 0 {
		fmt.Fprintf(w, "fetched %.1f MB from object storage in %d GETs\n", float64(s.Fetched.Bytes)/1e6, s.Fetched.Requests)
	}
	for _, sk := range s.SkippedFiles {
		fmt.Fprintf(w, "  skipped %s: %s\n", sk.Path, sk.Reason)
	}
	for _, l := range s.LinksNotFollowed {
		fmt.Fprintf(w, "  %s\n", ingest.NotFollowed(l))
	}
	if len(s.Classes) > 0 {
		if s.Incremental != nil {
			fmt.Fprintln(w, "reply classes of the files read:")
		} else {
			fmt.Fprintln(w, "reply classes:")
		}
		for _, c := range classOrder(s.Classes) {
			fmt.Fprintf(w, "  %-16s %8d\n", c, s.Classes[c])
		}
	}
	fmt.Fprintf(w, "tables in %s (DuckDB views: %s)\n", filepath.Join(s.Dir, store.CurrentLink), filepath.Join(s.Dir, store.ViewsFile))
}

// classOrder lists the classes present in the seed's order.
func classOrder(m map[string]int64) []string {
	var out []string
	for _, r := range classify.OrderedRules() {
		if _, ok := m[r.Class]; ok && (len(out) == 0 || out[len(out)-1] != r.Class) {
			out = append(out, r.Class)
		}
	}
	var rest []string
	for c := range m {
		found := false
		for _, o := range out {
			found = found || o == c
		}
		if !found {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func printCompaction(w io.Writer, c ingest.Compaction) {
	if len(c) == 0 {
		return
	}
	var parts, into int
	tables := make([]string, len(c))
	for i, t := range c {
		parts += t.Parts
		into += t.Into
		tables[i] = fmt.Sprintf("%s %d into %d", t.Table, t.Parts, t.Into)
	}
	fmt.Fprintf(w, "compacted %d part files into %d (%s), in the order a full ingest writes\n", parts, into, strings.Join(tables, ", "))
}

func printIncremental(w io.Writer, p *ingest.Incremental) {
	var notes []string
	if p.Hashed > 0 {
		notes = append(notes, fmt.Sprintf("%d with a new size or time settled by content hash", p.Hashed))
	}
	if p.Stale > 0 {
		notes = append(notes, fmt.Sprintf("%d changed because another empties version read them", p.Stale))
	}
	note := ""
	if len(notes) > 0 {
		note = "; " + strings.Join(notes, ", ")
	}
	fmt.Fprintf(w, "incremental: new %d, changed %d, unchanged %d, removed %d%s (--full reads every file again)\n",
		p.New, p.Changed, p.Unchanged, p.Removed, note)
}

func printSetSummary(w io.Writer, s ingest.SetSummary, allAttempts bool) {
	if allAttempts {
		fmt.Fprintln(w, "log set: --all-attempts, every file counted")
		return
	}
	if s.Logs == 0 {
		return
	}
	var parts []string
	for _, r := range []string{logset.Retried, logset.Recovered, logset.MergedShards, logset.Duplicate} {
		if n := s.ByReason[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	fmt.Fprintf(w, "log set: %d logs superseded (%s) holding %d samples, counted by no measure (logs.set_status; --all-attempts counts every file)\n",
		s.Logs, strings.Join(parts, ", "), s.Samples)
}
