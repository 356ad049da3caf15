-- output: report_truncation_by_max_tokens
-- kind: query
-- grain: one row per eval × route × arm × max_tokens source × max_tokens, most stops first
-- measure: Truncation against the effective max_tokens (pre-registration §5 "Truncation share of samples", §3 "Exploration first"; §6 Wilson intervals with the sample as the unit), as the report's "Truncation against the effective max_tokens" shows it
-- needs: truncation_by_max_tokens
-- columns: eval, route, arm, max_tokens_source, max_tokens, n_samples, n_replies, max_tokens_rate, max_tokens_ci_low, max_tokens_ci_high, truncated_empty_rate, truncated_empty_ci_low, truncated_empty_ci_high, truncated_text_rate, truncated_text_ci_low, truncated_text_ci_high, level
SELECT eval, route, arm, max_tokens_source, max_tokens, n_samples, n_replies, max_tokens_rate, max_tokens_ci_low, max_tokens_ci_high,
  truncated_empty_rate, truncated_empty_ci_low, truncated_empty_ci_high, truncated_text_rate, truncated_text_ci_low, truncated_text_ci_high, level
FROM truncation_by_max_tokens
ORDER BY max_tokens_rate DESC, eval, route, arm, max_tokens_source, max_tokens NULLS FIRST
