-- output: cost
-- kind: output
-- grain: one row per part × route × arm × role × call model
-- measure: Cost per route and part (pre-registration §5 "Cost, per route and part"; §9 budget; design.md ruling: split by part, route and role, cache reads at their price)
-- needs: priced_calls, rates
--
-- route is the route of the log the call belongs to (the model under test's route, also for its
-- judges); role is model_calls.kind (model_under_test, judge, other). cost_usd sums the priced
-- calls and is NULL when none of the row's calls could be priced; n_unpriced_calls says how many
-- were not.
SELECT
  part, route, arm, role, call_model, price_route,
  count(*) AS n_calls,
  count(*) FILTER (WHERE local_cache) AS n_local_cache_calls,
  count(*) FILTER (WHERE cost_usd IS NULL) AS n_unpriced_calls,
  sum(input_tokens)::BIGINT AS input_tokens,
  sum(cache_read_tokens)::BIGINT AS cache_read_tokens,
  sum(cache_write_tokens)::BIGINT AS cache_write_tokens,
  sum(output_tokens)::BIGINT AS output_tokens,
  sum(reasoning_tokens)::BIGINT AS reasoning_tokens,
  exact_sum(cost_usd) AS cost_usd
FROM priced_calls
GROUP BY ALL
ORDER BY part, route, arm, role, call_model
