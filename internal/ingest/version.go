package ingest

// ExtractVersion is the version of the rules that turn a log into rows
// (which reply is chosen, how fields are read, how scores and model calls
// are typed), beside the tables' columns and the classification rules
// (classify.Version) that logs.ingest_version also names. Bump it with any
// change to the rows ingest makes from the same file, so datasets read their
// logs again: TestRowsGolden fails until it is bumped, then
// `go test ./internal/ingest -run TestRowsGolden -update` records the new rows.
const ExtractVersion = 5 // 2: the reply call keeps its prompt (model_calls.prompt_text); 3: span ancestry to the root, the shape inspect_ai's models accept, pydantic's lax ints and bools, typed timestamps and sample timing; 4: an absent optional text (eval_id, sample_uuid, ingest_errors.member, ...) is NULL in every row, never "" (parquet-go wrote "" after a first value), and a header without status is "started", as EvalLog defaults it; 5: every generation of the model under test has a class (model_calls.class, class_rule, non_answer, with reasoning_present and tools_offered), and the final reply beside the first (replies.final_*, generations, non_answer_generations)
