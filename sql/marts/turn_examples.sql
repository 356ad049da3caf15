-- output: turn_examples
-- kind: output
-- grain: one row per non-answer class × draw (at most examples_per_class non-answer generations of each class, in multi-turn replies)
-- measure: Real examples of empty turns (pre-registration §4 "Exploration first: rough rates and real examples", per generation): a non-answer generation of the model under test in a reply with more than one, drawn with a seed, with the turn before it and the turn after it and the address that opens the sample in inspect view
-- needs: study_generations, study_turns, model_calls, replies, logs, inspect_view
--
-- Needs no manifest. A turn is a row of study_generations (judges inside the solver left out); the
-- turn before and after are the sample's previous and next turns (NULL at either end: a turn
-- after none is the first reply, one before none the final reply). The draw orders a class's turns
-- by md5 of the examples seed and the turn's content key (the log file's SHA-256, sample_id,
-- epoch, call_index), as class_examples draws replies, and keeps the first examples_per_class.
-- first_class and final_class are the reply's (study_turns).
WITH neighbours AS (
  SELECT *,
    lag(call_index) OVER w AS before_index,
    lead(call_index) OVER w AS after_index
  FROM study_generations
  WHERE turns > 1
  WINDOW w AS (PARTITION BY log_id, sample_id, epoch ORDER BY turn)
),
drawn AS (
  SELECT n.*, l.path, l.sha256 AS log_sha256,
    count(*) OVER (PARTITION BY n.class) AS n_in_class,
    row_number() OVER (PARTITION BY n.class ORDER BY md5(concat_ws('/', getvariable('examples_seed'), l.sha256, n.sample_id, n.epoch, n.call_index)),
      l.sha256, n.sample_id, n.epoch, n.call_index, l.path) AS draw
  FROM neighbours n
  JOIN logs l USING (log_id)
  WHERE n.non_answer
)
SELECT
  d.class, d.draw::BIGINT AS draw, d.n_in_class, d.eval, d.route, d.arm,
  d.path, r.member, d.sample_id, d.epoch,
  inspect_view_command(d.path) AS view_command,
  inspect_view_url(d.path, d.sample_id, d.epoch) AS view_url,
  d.turn, d.turns, d.call_index, d.class_rule,
  m.text, m.stop_reason, m.reasoning_chars, m.tool_call_count,
  t.class AS first_class, t.final_class,
  b.class AS before_class, b.text AS before_text, b.stop_reason AS before_stop_reason, b.tool_call_count AS before_tool_call_count,
  a.class AS after_class, a.text AS after_text, a.stop_reason AS after_stop_reason, a.tool_call_count AS after_tool_call_count
FROM drawn d
JOIN model_calls m ON m.log_id = d.log_id AND m.sample_id = d.sample_id AND m.epoch = d.epoch AND m.call_index = d.call_index
JOIN replies r ON r.log_id = d.log_id AND r.sample_id = d.sample_id AND r.epoch = d.epoch
JOIN study_turns t ON t.log_id = d.log_id AND t.sample_id = d.sample_id AND t.epoch = d.epoch
LEFT JOIN model_calls b ON b.log_id = d.log_id AND b.sample_id = d.sample_id AND b.epoch = d.epoch AND b.call_index = d.before_index
LEFT JOIN model_calls a ON a.log_id = d.log_id AND a.sample_id = d.sample_id AND a.epoch = d.epoch AND a.call_index = d.after_index
WHERE d.draw <= getvariable('examples_per_class')
ORDER BY d.class, d.draw
