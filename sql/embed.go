// Package sqlfiles holds the analysis SQL of `empties analyze` and the
// queries other stages run, in five folders by kind: macros/ (shared SQL
// functions: a rate with its Wilson interval, the per-sample weighting, the
// percentile interval, exact sums), intermediate/ (the views and tables
// other steps read, built on the staging views internal/duck creates over
// the dataset's tables), marts/ (the outputs analyze writes), queries/
// (queries a stage runs on its own connection, with holes it fills: rescore's
// headlines and study tables, decide's deciding values) and checks/ (the
// invariants `empties check` verifies, each returning the rows that break
// it). One
// .sql file per output, each opening with a header comment (output, kind, grain, the
// pre-registration measure it implements, the tables it reads) that
// internal/measures parses and validates before running any file, and a
// contract (<output>.yml) beside every output table: its grain, key, columns
// and invariants, checked by the tests and by every analyze run.
//
// Files never hold a path: the analyze stage creates the source views over
// the dataset's Parquet tables, and runs the files in dependency order.
package sqlfiles

import "embed"

// FS holds every .sql file and contract.
//
//go:embed macros intermediate marts queries checks
var FS embed.FS
