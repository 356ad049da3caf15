-- output: priced_calls
-- kind: view
-- grain: one row per model call (model_calls row) of a log placed in the study
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): each call's usage times the manifest's prices per million tokens
-- needs: model_calls, log_assignments, study_routes, call_cost
-- optional: route_models
--
-- Route: a model-under-test call is priced at its log's route; any other call (a judge) at the route
-- whose manifest models list names the call's model (route_models; the first such route in manifest
-- order), else it is unpriced (price_route and cost_usd NULL). Price: call_cost (one definition,
-- also used by `empties select`). Calls served from inspect's local cache (cache = read) were never
-- billed and cost 0.
WITH calls AS (
  SELECT
    c.log_id, c.sample_id, c.epoch, c.call_index,
    a.eval, a.route, a.arm, a.part,
    c.kind AS role, c.model AS call_model,
    coalesce(c.cache = 'read', false) AS local_cache,
    coalesce(c.input_tokens, 0) AS input_tokens,
    coalesce(c.cache_read_tokens, 0) AS cache_read_tokens,
    coalesce(c.cache_write_tokens, 0) AS cache_write_tokens,
    coalesce(c.output_tokens, 0) AS output_tokens,
    coalesce(c.reasoning_tokens, 0) AS reasoning_tokens
  FROM model_calls c
  JOIN log_assignments a USING (log_id)
),
model_route AS (
  SELECT m.model AS call_model, arg_min(m.route, m.ordinal) AS model_route
  FROM route_models m SEMI JOIN study_routes s USING (route)
  GROUP BY ALL
),
routed AS (
  SELECT c.*,
    CASE WHEN c.role = 'model_under_test' AND lr.route IS NOT NULL THEN c.route ELSE m.model_route END AS price_route
  FROM calls c
  LEFT JOIN study_routes lr ON lr.route = c.route
  LEFT JOIN model_route m USING (call_model)
),
priced AS (
  SELECT r.*,
    CASE
      WHEN r.local_cache THEN 0.0
      WHEN r.price_route IS NULL THEN NULL
      ELSE call_cost(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.output_tokens, r.reasoning_tokens,
                     s.price_input, s.price_cache_read, s.price_output, s.price_reasoning)
    END AS cost_usd
  FROM routed r
  LEFT JOIN study_routes s ON s.route = r.price_route
)
SELECT
  log_id, sample_id, epoch, call_index, eval, route, arm, part, role, call_model, price_route, local_cache,
  input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd::DOUBLE AS cost_usd
FROM priced
