package cliutil

import "github.com/urfave/cli/v3"

// The names of the flags several stages take. A stage defines them with the
// functions below, so that each is spelt, abbreviated and explained alike in
// every stage, and reads them by these names.
const (
	DataFlag                = "data"
	OutFlag                 = "out"
	ManifestFlag            = "manifest"
	AllowPreregMismatchFlag = "allow-prereg-mismatch"
)

// NewDataFlag is --data DIR (-d), the dataset a stage reads: required;
// usage follows "dataset DIR" (which stages' tables it needs, "written by
// ingest").
func NewDataFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: DataFlag, Aliases: []string{"d"}, Usage: join("dataset `DIR`", usage), Required: true}
}

// NewOutFlag is --out (-o), where a stage writes: required; usage says
// what (with its placeholder, "report folder `DIR`").
func NewOutFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: OutFlag, Aliases: []string{"o"}, Usage: usage, Required: true}
}

// Optional is f not required; usage replaces its help, to say what its
// absence means.
func Optional(f *cli.StringFlag, usage string) *cli.StringFlag {
	f.Required, f.Usage = false, usage
	return f
}

// ManifestFlags are --manifest FILE (-m), required, and
// --allow-prereg-mismatch, which the manifest's check of its
// pre-registration names in its message: every stage that loads the
// manifest takes both.
func ManifestFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: ManifestFlag, Aliases: []string{"m"}, Usage: "experiment manifest `FILE`", Required: true},
		allowPreregMismatch(),
	}
}

// OptionalManifestFlags are ManifestFlags for a stage that runs without a
// manifest what needs none (analyze, run).
func OptionalManifestFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: ManifestFlag, Aliases: []string{"m"}, Usage: "experiment manifest `FILE`; without one, what needs it is skipped"},
		allowPreregMismatch(),
	}
}

func allowPreregMismatch() cli.Flag {
	return &cli.BoolFlag{Name: AllowPreregMismatchFlag, Usage: "accept a pre-registration whose SHA-256 differs from the manifest's (needs --manifest)"}
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}
