-- output: truncation_by_max_tokens
-- kind: output
-- grain: one row per eval × route × arm × max_tokens_source × max_tokens (without a manifest: per task × model)
-- measure: Truncation against the effective max_tokens (pre-registration §5 "Truncation share of samples", §4 "Exploration first"; §6 Wilson intervals with the sample as the unit): how often replies stop at the token limit, at which limit, and where that limit came from
-- needs: study_replies, rates
--
-- Needs no manifest. max_tokens is the reply's effective limit and max_tokens_source where it came
-- from (replies: call, eval, or unset = the provider's default, max_tokens null). A group's n is its
-- samples; x sums the sample weights of study_replies, so a sample whose epochs ran under different
-- limits counts in each group with the share of its replies there. max_tokens_rate: replies that
-- stopped with stop_reason max_tokens; truncated_empty_rate and truncated_text_rate: the two classes.
WITH groups AS (
  SELECT
    eval, profiled, route, arm, max_tokens_source, max_tokens,
    count(DISTINCT sample_id) AS n_samples,
    count(*) AS n_replies,
    count(*) FILTER (WHERE stop_reason = 'max_tokens') AS n_max_tokens_stops,
    sample_share(sample_weight, stop_reason = 'max_tokens') AS x_max_tokens,
    count(*) FILTER (WHERE class = 'truncated_empty') AS n_truncated_empty,
    sample_share(sample_weight, class = 'truncated_empty') AS x_truncated_empty,
    count(*) FILTER (WHERE class = 'truncated_text') AS n_truncated_text,
    sample_share(sample_weight, class = 'truncated_text') AS x_truncated_text
  FROM study_replies
  GROUP BY ALL
)
SELECT
  eval, profiled, route, arm, max_tokens_source, max_tokens, n_samples, n_replies,
  n_max_tokens_stops, x_max_tokens,
  rate(x_max_tokens, n_samples) AS max_tokens_rate,
  wilson_low(x_max_tokens, n_samples) AS max_tokens_ci_low,
  wilson_high(x_max_tokens, n_samples) AS max_tokens_ci_high,
  n_truncated_empty, x_truncated_empty,
  rate(x_truncated_empty, n_samples) AS truncated_empty_rate,
  wilson_low(x_truncated_empty, n_samples) AS truncated_empty_ci_low,
  wilson_high(x_truncated_empty, n_samples) AS truncated_empty_ci_high,
  n_truncated_text, x_truncated_text,
  rate(x_truncated_text, n_samples) AS truncated_text_rate,
  wilson_low(x_truncated_text, n_samples) AS truncated_text_ci_low,
  wilson_high(x_truncated_text, n_samples) AS truncated_text_ci_high,
  getvariable('interval_level') AS level
FROM groups
ORDER BY eval, profiled, route, arm, max_tokens_source, max_tokens NULLS FIRST
