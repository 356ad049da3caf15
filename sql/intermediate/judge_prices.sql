-- output: judge_prices
-- kind: view
-- grain: one row per eval of the study with judge calls billed (not served from inspect's local cache)
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what an eval's judge calls cost on average at the manifest's prices (priced_calls, the cost table's price of each call), from which `empties select` prices a Part B or Part C plan's new judge calls
-- needs: priced_calls, model_calls, study_routes, call_cost, rates, judge_calls
-- optional: study_evals
--
-- A judge call is one is_judge_call (the one definition, sql/macros/judge_calls.sql) finds a
-- judge's, given where the judge of the call's eval runs (study_evals.judge_where). Calls
-- served from inspect's cache say nothing of what a new call costs and are left out. judge_model is
-- the model of the eval's first judge call (by log, sample, epoch and call index); calls_per_sample
-- the judge calls per sample × epoch that made any. priced is true when a route prices every one of
-- the calls; per_call_usd is the mean cost (exact_avg) of the priced ones, 0 when none is.
WITH judge AS (
  SELECT p.eval, p.call_model, p.log_id, p.sample_id, p.epoch, p.call_index, p.price_route,
    call_cost(p.input_tokens, p.cache_read_tokens, p.cache_write_tokens, p.output_tokens, p.reasoning_tokens,
              s.price_input, s.price_cache_read, s.price_output, s.price_reasoning) AS cost_usd
  FROM priced_calls p
  JOIN model_calls m USING (log_id, sample_id, epoch, call_index)
  LEFT JOIN study_evals e ON e.eval = p.eval
  LEFT JOIN study_routes s ON s.route = p.price_route
  WHERE is_judge_call(m.kind, m.is_reply, e.judge_where) AND NOT p.local_cache AND p.eval IS NOT NULL
), by_eval AS (
  SELECT eval, arg_min(call_model, (log_id, sample_id, epoch, call_index)) AS judge_model, count(*) AS n_calls,
    count(DISTINCT (log_id, sample_id, epoch)) AS n_samples, count(price_route) = count(*) AS all_routed,
    exact_avg(cost_usd) AS mean_cost
  FROM judge
  GROUP BY eval
)
SELECT eval, judge_model, n_calls, n_calls / n_samples AS calls_per_sample,
  all_routed AND mean_cost IS NOT NULL AS priced, coalesce(mean_cost, 0) AS per_call_usd
FROM by_eval
