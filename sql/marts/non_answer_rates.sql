-- output: non_answer_rates
-- kind: output
-- grain: one row per eval × route × arm (without a manifest: per task × model)
-- measure: Non-answer rates (pre-registration §5 "Class rates", pooled over the non-answer classes; §6 Wilson intervals with the sample as the unit), with the reasoning_only and tool_only shares the exploration asks for (§4 "Exploration first")
-- needs: study_replies, reply_classes, rates
--
-- Needs no manifest: without log_assignments eval is the log's task and route the log's model
-- (study_replies). non_answer_rate is the share of the cell's samples whose replies are non-answers
-- (a sample with several replies carries the share of them that are), reasoning_only_rate and
-- tool_only_rate the shares in those two classes (tool_only counts whether or not it is a non-answer:
-- it is one only when the eval offered no tools). no_reply_rate is the share with no reply at all
-- (a class that is no reply: error, no_choices), which is never a non-answer: shown beside it, a
-- cell whose every sample errored reads no_reply_rate 1, not an unexplained non_answer_rate 0.
WITH cells AS (
  SELECT
    eval, profiled, route, arm,
    count(DISTINCT sample_id) AS n_samples,
    count(*) AS n_replies,
    count(*) FILTER (WHERE non_answer) AS n_non_answer_replies,
    sample_share(sample_weight, non_answer) AS x_non_answer,
    count(*) FILTER (WHERE class = 'reasoning_only') AS n_reasoning_only_replies,
    sample_share(sample_weight, class = 'reasoning_only') AS x_reasoning_only,
    count(*) FILTER (WHERE class = 'tool_only') AS n_tool_only_replies,
    sample_share(sample_weight, class = 'tool_only') AS x_tool_only,
    count(*) FILTER (WHERE NOT is_reply) AS n_no_reply_replies,
    sample_share(sample_weight, NOT is_reply) AS x_no_reply
  FROM study_replies
  JOIN reply_classes USING (class)
  GROUP BY eval, profiled, route, arm
)
SELECT
  eval, profiled, route, arm, n_samples, n_replies,
  n_non_answer_replies, x_non_answer,
  rate(x_non_answer, n_samples) AS non_answer_rate,
  wilson_low(x_non_answer, n_samples) AS non_answer_ci_low,
  wilson_high(x_non_answer, n_samples) AS non_answer_ci_high,
  n_reasoning_only_replies, x_reasoning_only,
  rate(x_reasoning_only, n_samples) AS reasoning_only_rate,
  wilson_low(x_reasoning_only, n_samples) AS reasoning_only_ci_low,
  wilson_high(x_reasoning_only, n_samples) AS reasoning_only_ci_high,
  n_tool_only_replies, x_tool_only,
  rate(x_tool_only, n_samples) AS tool_only_rate,
  wilson_low(x_tool_only, n_samples) AS tool_only_ci_low,
  wilson_high(x_tool_only, n_samples) AS tool_only_ci_high,
  n_no_reply_replies, x_no_reply,
  rate(x_no_reply, n_samples) AS no_reply_rate,
  wilson_low(x_no_reply, n_samples) AS no_reply_ci_low,
  wilson_high(x_no_reply, n_samples) AS no_reply_ci_high,
  getvariable('interval_level') AS level
FROM cells
ORDER BY eval, profiled, route, arm
