-- output: judge_tests
-- kind: query
-- grain: one row per Part C sample of one eval (a non-answer form replayed to the eval's judge), the rows of judge_tests
-- measure: D4 (pre-registration §1 and §5, Part C): each judge verdict on a substituted non-answer, whether the profile's judge.pass predicate says it passes the non-answer, the first judge call's model, temperature and class
-- needs: policy_scores, replies, log_assignments, model_calls, score_values, judge_calls
-- holes: components, pass
-- columns: log_id, judge_model, temperature, form, sample_id, repeat, verdict_json, verdict_float, passed, judge_class
--
-- Rescore runs it once per eval ($eval; $judge_where is where its judge runs), the holes filled
-- from the eval's profile: components as for reply_outcomes, pass the profile's judge.pass predicate over them (NULL when it has none).
-- Each Part C sample substitutes one non-answer form (sample metadata empties_form) for the
-- response; a repeat is the sample's empties_repeat (empties rerun makes one sample per repeat),
-- else its epoch. The first judge call is the sample's first call by is_judge_call (the one
-- definition of a judge call, sql/macros/judge_calls.sql).
WITH comps AS (
  SELECT log_id, sample_id, epoch, unscored, value_json, value_float, {{components}} FROM policy_scores WHERE eval = $eval AND policy = 'P0'
), verdicts AS (
  SELECT log_id AS __log_id, sample_id AS __sample_id, epoch AS __epoch, value_json AS __value_json, value_float AS __value_float,
    CASE WHEN unscored THEN NULL ELSE {{pass}} END AS __passed
  FROM comps
), first_judge AS (
  SELECT log_id, sample_id, epoch, arg_min(model, call_index) AS model, arg_min(temperature, call_index) AS temperature,
    arg_min(judge_class, call_index) AS judge_class
  FROM model_calls WHERE is_judge_call(kind, is_reply, $judge_where) GROUP BY ALL
)
SELECT __log_id AS log_id, coalesce(__j.model, '') AS judge_model, __j.temperature AS temperature,
  coalesce(json_extract_string(__r.sample_metadata, '$.empties_form'), 'unknown') AS form,
  coalesce(json_extract_string(__r.sample_metadata, '$.empties_sample_id'), __sample_id) AS sample_id,
  coalesce(TRY_CAST(json_extract(__r.sample_metadata, '$.empties_repeat') AS BIGINT), __epoch) AS repeat,
  __value_json::VARCHAR AS verdict_json, __value_float AS verdict_float, __passed AS passed, coalesce(__j.judge_class, '') AS judge_class
FROM verdicts JOIN replies __r ON __r.log_id = __log_id AND __r.sample_id = __sample_id AND __r.epoch = __epoch
JOIN log_assignments __a ON __a.log_id = __log_id
LEFT JOIN first_judge __j ON __j.log_id = __log_id AND __j.sample_id = __sample_id AND __j.epoch = __epoch
WHERE __a.part = 'C'
ORDER BY 4, 5, 6, 1
