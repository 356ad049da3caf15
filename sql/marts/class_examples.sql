-- output: class_examples
-- kind: output
-- grain: one row per reply class × draw (at most examples_per_class replies of each class that occurs)
-- measure: Real examples of each class (pre-registration §4 "Exploration first: rough rates and real examples"), drawn with a seed, each with its raw fields and the address that opens the sample in inspect view
-- needs: study_replies, replies, logs, inspect_view
-- optional: model_calls
--
-- Needs no manifest. The draw orders the replies of a class by md5 of the examples seed and the
-- reply's content key (the log file's SHA-256, sample_id, epoch; not log_id, which hashes the
-- file's path), so the same seed and logs give the same examples wherever the logs lie, and
-- keeps the first examples_per_class. view_command serves the log's folder in inspect view and
-- view_url opens the sample in it (sql/macros/inspect_view.sql). prompt_text is the last user message of the call whose output
-- is the reply (model_calls.is_reply), so an example shows what the model was asked; NULL for a reply
-- taken from sample.output or none.
WITH joined AS (
  SELECT
    s.class, s.eval, s.route, s.arm, s.log_id, s.sample_id, s.epoch, l.path, l.sha256 AS log_sha256,
    r.* EXCLUDE (log_id, sample_id, epoch, class, eval_id, task, model)
  FROM study_replies s
  JOIN replies r USING (log_id, sample_id, epoch)
  JOIN logs l USING (log_id)
),
prompts AS (
  SELECT log_id, sample_id, epoch, any_value(prompt_text) AS prompt_text
  FROM model_calls
  WHERE is_reply
  GROUP BY ALL
),
drawn AS (
  SELECT
    *,
    count(*) OVER (PARTITION BY class) AS n_in_class,
    row_number() OVER (PARTITION BY class ORDER BY md5(concat_ws('/', getvariable('examples_seed'), log_sha256, sample_id, epoch)), log_sha256, sample_id, epoch, path) AS draw
  FROM joined
)
SELECT
  class, draw::BIGINT AS draw, n_in_class, eval, route, arm,
  path, member, sample_id, epoch,
  inspect_view_command(path) AS view_command,
  inspect_view_url(path, sample_id, epoch) AS view_url,
  class_rule, reply_source, reply_model, stop_reason, stop_details_type, stop_details_category,
  stop_details_explanation, output_error, call_error, sample_error, sample_limit, n_choices,
  text, text_chars, refusal, reasoning_chars, reasoning_redacted, reasoning_text,
  tool_call_count, array_to_string(tool_call_functions, ',') AS tool_call_functions,
  max_tokens, max_tokens_source, output_tokens, reasoning_tokens,
  non_answer, tools_offered, failed_attempts, first_attempt_error, p.prompt_text
FROM drawn
LEFT JOIN prompts p USING (log_id, sample_id, epoch)
WHERE draw <= getvariable('examples_per_class')
ORDER BY class, draw
