// Package servecmd is `empties serve`: a local web server over one dataset
// (internal/serve does the work): the report, every reply with filters, a
// page per sample with its whole story from the log, and a read-only SQL
// box.
package servecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/measures"
	"empties/internal/report"
	"empties/internal/serve"
	"empties/internal/store"
)

// Options configure a server.
type Options struct {
	Data string
	Addr string // host to listen on
	Port int    // 0: any free port
	// SQL turns the SQL box on; nil: on for a loopback address only.
	SQL *bool
	// The SQL box's limits per statement: memory and spill in bytes (0:
	// DefaultSQLMemory, DefaultSQLSpill), threads (0: HalfTheCores), time
	// (0: DefaultSQLTimeout; negative: none).
	SQLMemory, SQLSpill int64
	SQLThreads          int
	SQLTimeout          time.Duration
	// Ready, if set, is called with the server's address once it listens
	// (tests).
	Ready func(url string)
}

// DefaultPort is beside inspect view's 7575.
const DefaultPort = 7576

// DefaultSQLTimeout is how long a statement of the SQL box may run unless
// --sql-timeout says.
const DefaultSQLTimeout = 30 * time.Second

// DefaultSQLMemory is what a statement of the SQL box may hold in memory
// unless --sql-memory says: an eighth of the machine's (or its
// container's), where DuckDB would take 80%; past it DuckDB spills.
func DefaultSQLMemory() int64 { return duck.TotalMemory() / 8 }

// DefaultSQLSpill is what a statement of the SQL box may spill unless
// --sql-spill says: half the free space of the temporary folder, at most
// 4 GiB.
func DefaultSQLSpill() int64 { return duck.FreeSpill(os.TempDir(), 4<<30) }

// Command returns the `serve` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "browse every reply of a dataset in the browser: the report, replies by class, task, model and stop reason, each sample's story",
		ArgsUsage: "DIR",
		Description: `Serves one dataset (the folder ingest or run wrote) on a local web server:

   /          the report (the page ` + "`empties report`" + ` writes, regenerated from the
              tables the server reads; on a dataset analyze has not run on,
              the exploration measures are computed for the page into the
              server's temporary folder, not stored, and the page says so)
   /replies   every reply, filtered by class, non-answer, task, model (and eval,
              route with a manifest), stop reason, stop_details category, reply
              source, attempts skipped, log and log set, with a text search;
              counts per value, sorted and paged by DuckDB; filters are in the
              URL, so a view can be shared as a link
   /sample    one sample: the messages the model under test was sent, each of
              its calls in order (placeholders and retried attempts marked), the
              reply chosen in full, the scores and the judge calls behind them,
              the class and its rule, read from the log's sample member (ranged
              reads for s3:// logs)
   /sql       a read-only SQL box over the dataset's views (paged; CSV export)

The server reads one generation of the dataset, pinned, through a DuckDB that
cannot write: a page never shows rows of two generations, whatever an ingest
does meanwhile, and when a newer generation appears the pages offer to switch
to it. It writes nothing
into the dataset (its report page and DuckDB's spill files go to a temporary
folder, removed when it stops) and fetches nothing from the network.

Each statement of the SQL box holds at most --sql-memory in memory (default:
an eighth of the machine's), spills at most --sql-spill to the temporary
folder (default: half its free space, at most 4 GiB), uses --sql-threads
cores (default: half of them) and runs at most --sql-timeout (default 30s);
a page shows at most 16 MiB of rows (the CSV download has them all, within
the same limits; for more, ` + "`empties sql ... --format csv`" + `). A
statement stopped by a limit says which, and the flag that raises it. A
page of another site cannot make the server run a query: a request that
its browser marks as coming from another site (Sec-Fetch-Site, or Origin
and Referer where a browser sends no Sec-Fetch-Site) is refused, but for a
link followed to a page, where the SQL box shows the query without running
it until Run is pressed.

It listens on 127.0.0.1 unless --addr says otherwise. On any other address
every request needs the token printed at start-up (open the address printed,
which carries it; it is kept in a cookie), and the SQL box is off unless
--sql turns it on. Stop it with Ctrl-C.

Examples:
   empties serve out/explore
   empties serve data/study --port 8080
   empties serve data/study --addr 0.0.0.0 --port 7576         # token printed; no SQL box
   empties serve data/study --addr 0.0.0.0 --sql               # token, SQL box on
   empties serve data/study --sql-memory 8GiB --sql-timeout 5m  # heavier ad-hoc queries`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1", Usage: "listen on this `HOST` (an address or name; 0.0.0.0 for every interface, which asks for a token)"},
			&cli.IntFlag{Name: "port", Aliases: []string{"p"}, Value: DefaultPort, Usage: "listen on this `PORT` (0: any free port)"},
			&cli.BoolFlag{Name: "sql", Usage: "turn the read-only SQL box on (default: on for a loopback address, off otherwise); --sql=false turns it off"},
			&cli.StringFlag{Name: "sql-memory", Usage: "the most a statement of the SQL box holds in memory, e.g. 4GiB or 25% (default: an eighth of the machine's memory)"},
			&cli.StringFlag{Name: "sql-spill", Usage: "the most a statement of the SQL box spills to disk past its memory, e.g. 20GB (default: half the free space of the temporary folder, at most 4 GiB)"},
			&cli.DurationFlag{Name: "sql-timeout", Value: DefaultSQLTimeout, Usage: "stop a statement of the SQL box after this long (0: no time limit)"},
			&cli.IntFlag{Name: "sql-threads", Usage: "the cores a statement of the SQL box may use (default: half of them)"},
		},
		Arguments: []cli.Argument{&cli.StringArg{Name: "dir"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts := Options{Data: c.StringArg("dir"), Addr: c.String("addr"), Port: c.Int("port"), SQLThreads: c.Int("sql-threads"), SQLTimeout: c.Duration("sql-timeout")}
			if c.IsSet("sql") {
				v := c.Bool("sql")
				opts.SQL = &v
			}
			if opts.SQLTimeout == 0 {
				opts.SQLTimeout = -1 // --sql-timeout 0: none
			}
			for name, dst := range map[string]*int64{"sql-memory": &opts.SQLMemory, "sql-spill": &opts.SQLSpill} {
				if c.IsSet(name) {
					n, err := duck.ParseBytes(c.String(name))
					if err != nil {
						return cliutil.Usagef("serve: --%s: %v", name, err)
					}
					*dst = n
				}
			}
			return Run(ctx, opts, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Usagef("serve: no DIR given, e.g. empties serve out/explore")
	}
	if o.Port < 0 || o.Port > 65535 {
		return cliutil.Usagef("serve: --port %d is not a port (0-65535)", o.Port)
	}
	if _, _, err := net.SplitHostPort(o.Addr); err == nil {
		return cliutil.Usagef("serve: --addr takes a host (%s names a port too): give the port with --port, e.g. --addr 0.0.0.0 --port 7576", o.Addr)
	}
	if o.SQLMemory < 0 || o.SQLSpill < 0 || o.SQLThreads < 0 {
		return cliutil.Usagef("serve: --sql-memory, --sql-spill and --sql-threads cannot be negative")
	}
	return nil
}

// Run serves until ctx is cancelled, and then returns ctx's error (the
// command exits 130, interrupted, as every command stopped by Ctrl-C).
// DIR is checked before anything listens.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTablesAs("serve", opts.Data, "DIR", "replies"); err != nil {
		return err
	}
	loopback := serve.IsLoopback(opts.Addr)
	sqlOn := loopback
	if opts.SQL != nil {
		sqlOn = *opts.SQL
	}
	token := ""
	if !loopback {
		var err error
		if token, err = serve.NewToken(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.Addr, strconv.Itoa(opts.Port)))
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s: %w (is another server on that port? try --port 0 or another --port)", net.JoinHostPort(opts.Addr, strconv.Itoa(opts.Port)), err)
	}
	defer ln.Close()
	start := time.Now()
	// The report page of each generation is the one `empties report` writes
	// (report.Write), built through a database of its own: the server's
	// cannot write. A dataset analyze has not run on gets its exploration
	// measures computed into the server's scratch (measures.Explore), never
	// into the dataset.
	srv, err := serve.New(ctx, serve.Options{Data: opts.Data, Loopback: loopback, Token: token, SQL: sqlOn,
		SQLLimits: opts.sqlLimits(), Report: report.Write, Measures: measures.Explore})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer srv.Close()

	host := opts.Addr
	if !loopback && (host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified()) {
		// Every interface: the reader names this machine.
		if host, err = os.Hostname(); err != nil || host == "" {
			host = "HOST"
		}
	}
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)) + "/"
	if token != "" {
		url += "?token=" + token
	}
	fmt.Fprintf(w, "serving %s (generation %d) at %s\n", opts.Data, srv.Generation(), url)
	lim := opts.sqlLimits()
	if token != "" {
		fmt.Fprintf(w, "  not a loopback address: every request needs the token above (the address carries it)\n")
	}
	if sqlOn {
		limit := "no time limit"
		if lim.Timeout > 0 {
			limit = lim.Timeout.String()
		}
		fmt.Fprintf(w, "  SQL box on (read-only) at /sql; each statement: %s of memory, %s of spill, threads %d, %s\n",
			duck.Bytes(lim.Memory), duck.Bytes(lim.Spill), lim.Threads, limit)
	} else {
		fmt.Fprintf(w, "  SQL box off (--sql turns it on)\n")
	}
	fmt.Fprintf(w, "  opened in %s; stop with Ctrl-C\n", time.Since(start).Round(time.Millisecond))
	if opts.Ready != nil {
		opts.Ready("http://" + ln.Addr().String() + "/")
	}

	// Every request's context is the command's: Ctrl-C interrupts the
	// queries and log reads in flight, so the server stops at once rather
	// than after the SQL box's time limit.
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	fmt.Fprintln(w, "serve: stopped")
	// Stopped by Ctrl-C, as every command is: exit 130, interrupted.
	return ctx.Err()
}

// sqlLimits are the SQL box's limits, defaults filled in.
func (o Options) sqlLimits() duck.Limits {
	lim := duck.Limits{Memory: o.SQLMemory, Spill: o.SQLSpill, Threads: o.SQLThreads, Timeout: o.SQLTimeout,
		MemoryFlag: "--sql-memory", SpillFlag: "--sql-spill", TimeoutFlag: "--sql-timeout"}.Or(
		duck.Limits{Memory: DefaultSQLMemory(), Spill: DefaultSQLSpill(), Threads: duck.HalfTheCores(), Timeout: DefaultSQLTimeout})
	if lim.Timeout < 0 { // --sql-timeout 0: none
		lim.Timeout = 0
	}
	return lim
}
