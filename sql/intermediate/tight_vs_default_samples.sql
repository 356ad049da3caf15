-- output: tight_vs_default_samples
-- kind: table
-- grain: one row per eval × route × measure × paired sample
-- measure: default versus tight, paired by sample (pre-registration §6): each sample's rate in both arms, over its replies paired by eval, route, sample id and epoch (design.md ruling)
-- needs: study_replies
--
-- measure is truncated_empty (the reply is truncated_empty) or non_answer (any non-answer class).
-- Samples seen in only one arm are not paired and are left out here (tight_vs_default counts them).
WITH default_arm AS (
  SELECT eval, route, sample_id, epoch, class, non_answer FROM study_replies WHERE profiled AND arm = 'default'
),
tight_arm AS (
  SELECT eval, route, sample_id, epoch, class, non_answer FROM study_replies WHERE profiled AND arm = 'tight'
),
paired AS (
  SELECT d.eval, d.route, d.sample_id,
    d.class = 'truncated_empty' AS d_truncated, t.class = 'truncated_empty' AS t_truncated,
    d.non_answer AS d_non_answer, t.non_answer AS t_non_answer
  FROM default_arm d
  JOIN tight_arm t USING (eval, route, sample_id, epoch)
),
per_sample AS (
  SELECT eval, route, sample_id,
    avg(d_truncated::INTEGER) AS d_truncated, avg(t_truncated::INTEGER) AS t_truncated,
    avg(d_non_answer::INTEGER) AS d_non_answer, avg(t_non_answer::INTEGER) AS t_non_answer
  FROM paired
  GROUP BY ALL
),
long AS (
  SELECT eval, route, 'truncated_empty' AS measure, sample_id, d_truncated AS default_value, t_truncated AS tight_value FROM per_sample
  UNION ALL
  SELECT eval, route, 'non_answer' AS measure, sample_id, d_non_answer AS default_value, t_non_answer AS tight_value FROM per_sample
)
SELECT eval, route, measure, sample_id, default_value, tight_value, tight_value - default_value AS delta
FROM long
