-- output: rerun_prices
-- kind: query
-- grain: one row per reply of a log placed in the study on a route with prices
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what re-running a reply's call costs at its log's route (call_cost, the cost table's price), as `empties select` prices a wide or control plan
-- needs: replies, log_assignments, study_routes, call_cost
-- columns: log_id, sample_id, epoch, estimate_usd, wide_upper_usd
--
-- Select runs it with $wide_max_tokens, the manifest's arms.wide.max_tokens. estimate_usd is the
-- reply's call once more with the tokens it used, billed even where inspect's cache served the
-- original; wide_upper_usd the wide arm's upper bound, the whole new budget spent on output (no
-- reasoning price: an upper bound of output tokens at the output price).
SELECT r.log_id, r.sample_id, r.epoch,
  call_cost(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.output_tokens, r.reasoning_tokens,
            s.price_input, s.price_cache_read, s.price_output, s.price_reasoning) AS estimate_usd,
  call_cost(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, greatest(coalesce(r.output_tokens, 0), $wide_max_tokens::BIGINT), 0,
            s.price_input, s.price_cache_read, s.price_output, s.price_reasoning) AS wide_upper_usd
FROM replies r
JOIN log_assignments a USING (log_id)
JOIN study_routes s ON s.route = a.route
