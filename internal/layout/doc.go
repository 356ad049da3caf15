// Package layout holds no code: it documents how a dataset's Parquet tables
// lie for engines beyond the embedded DuckDB (Spark, Trino, Polars, pandas),
// and its test reads every table of a real dataset with Apache Spark.
//
// What an engine finds, and what the test checks against DuckDB's reading of
// the same files:
//
//   - Where. A dataset folder DIR holds generations: DIR/current is a
//     symlink to gen/NNNNNN/, the generation readers see, which holds one
//     folder per table (DIR/current/<table>/part-NNNNN.parquet) and the
//     DuckDB view file; DIR/empties.duckdb links to current's. Every stage
//     run writes a new generation and switches current to it in one rename,
//     so an engine should resolve current once (os.path.realpath) and read
//     every table from that folder, never mixing two generations
//     (internal/store/dataset.go has the layout, commit.go the commit's
//     steps).
//     store.TableGlob(dir, table) is a table's read_parquet glob in the
//     current generation, and its folder is that glob's directory. Point an
//     engine at the folder (spark.read.parquet(folder)) or at the glob.
//     `empties schema` prints every table and column.
//   - Partitioning. None in the paths: a table's folder holds its part files
//     directly, with no key=value directories, so every engine discovers the
//     folder as one table with exactly the columns the files hold (no
//     inferred partition columns).
//   - Part files. Tables the Go stages write (schema/) roll over to a new
//     part-NNNNN.parquet every store.RowsPerFile rows (an incremental
//     ingest adds part files for the logs it read beside the kept ones, and
//     row order across parts is then not path order; once a table holds
//     more than store.MaxSmallParts small parts it rewrites them into full
//     ones in path order, and ingest --compact rewrites every part into the
//     files a full ingest writes), in row groups of at
//     most store.RowsPerGroup rows, so an engine splits a big table by file
//     and streams it by row group; analyze's outputs are one part file each,
//     written by DuckDB. Pages are Snappy (or zstd with ingest --compression
//     zstd), which every engine reads.
//   - Types. Strings are UTF-8 BYTE_ARRAY (string), integers INT64 (bigint),
//     floats DOUBLE, flags BOOLEAN; JSON values are strings holding JSON
//     text (NaN/Infinity literals kept), with the JSON logical type on the
//     required ones (scores.value_json, policy_scores.value_json, the
//     verdict_json columns: JSON in DuckDB, string in Spark) and none on the
//     optional ones, which parquet-go cannot write with it (the typed views
//     make every one JSON). Optional columns are nullable; Spark reads every
//     Parquet column as nullable.
//   - Timestamps. INT64 microseconds, TIMESTAMP(isAdjustedToUTC=true): an
//     instant, which Spark reads as timestamp (not timestamp_ntz) and DuckDB
//     as TIMESTAMP WITH TIME ZONE, the same microsecond in both.
//   - Lists. Three-level Parquet LISTs of strings (logs.tags,
//     model_calls.tool_call_functions, ...): array<string> in Spark,
//     VARCHAR[] in DuckDB (logs.tags of a log without tags is an empty
//     list, not a null).
//
// The test runs scripts/engines/spark_read.py with the pinned pyspark
// (requirements.txt) on the Java that `make java` installs from Debian's
// packages; a Spark that cannot start fails it.
package layout
