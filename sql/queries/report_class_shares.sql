-- output: report_class_shares
-- kind: query
-- grain: one row per eval × route × class of the default arm, the cells with most non-answers first
-- measure: Class rates (pre-registration §5 "Class rates": per eval × route × arm, the share of replies in each class; §6 Wilson intervals with the sample as the unit): the bars of the report's chart of class shares per cell, its cells in the order of their non-answer share (non_answer_rates)
-- needs: class_rates, non_answer_rates
-- columns: cell, class, rate, n_samples, ci_low, ci_high
SELECT c.eval || ' · ' || c.route AS cell, c.class, c.rate, c.n_samples, c.ci_low, c.ci_high
FROM class_rates c
LEFT JOIN (SELECT eval, profiled, route, arm, non_answer_rate, no_reply_rate FROM non_answer_rates) n USING (eval, profiled, route, arm)
WHERE c.arm = 'default'
ORDER BY n.non_answer_rate DESC NULLS LAST, n.no_reply_rate DESC NULLS LAST, c.n_samples DESC, cell
