-- output: call_cost
-- kind: macro
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling "Cost"): the one price of a model call, used by priced_calls (the cost table) and by `empties select` (a plan's estimate), so both price the same call the same way
-- needs:
--
-- call_cost(input, cache_read, cache_write, output, reasoning, p_input, p_cache_read, p_output,
-- p_reasoning) is the call's cost in US dollars from its usage and its route's prices per million
-- tokens. inspect_ai's input_tokens exclude cache reads and writes and its output_tokens include
-- reasoning_tokens (openai, anthropic, google adapters, 0.3.285). Input and cache writes are
-- charged at the input price (the manifest gives no cache-write price), cache reads at the
-- cache-read price, reasoning at the reasoning price and the rest of the output at the output
-- price. A reasoning price of 0 (or none) is the output price: the manifest says reasoning tokens
-- are billed as output. A NULL token count counts as 0.
CREATE OR REPLACE MACRO call_cost(input, cache_read, cache_write, output, reasoning, p_input, p_cache_read, p_output, p_reasoning) AS
  ((coalesce(input, 0) + coalesce(cache_write, 0)) * p_input
   + coalesce(cache_read, 0) * p_cache_read
   + greatest(coalesce(output, 0) - coalesce(reasoning, 0), 0) * p_output
   + coalesce(reasoning, 0) * CASE WHEN coalesce(p_reasoning, 0) > 0 THEN p_reasoning ELSE p_output END
  ) / 1e6;
