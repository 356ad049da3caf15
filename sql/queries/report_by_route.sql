-- output: report_by_route
-- kind: query
-- grain: one row per route of the default arm, most non-answers first
-- measure: The report's headline per route (pre-registration §5 "Class rates", pooled per route; §6 Wilson intervals with the sample as the unit): the first screen's "By model" table and "Every model", each route's non-answer and no-reply shares with their intervals, and its classes of each by replies
-- needs: overview, overview_classes
-- columns: route, n_evals, n_samples, n_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high, non_answer_classes, no_reply_rate, no_reply_ci_low, no_reply_ci_high, no_reply_classes
-- derived: non_answer_classes: identifier, non-answers by class (replies); no_reply_classes: identifier, no reply by class (replies)
SELECT o.route, o.n_evals, o.n_samples, o.n_replies,
  o.non_answer_rate, o.non_answer_ci_low, o.non_answer_ci_high,
  coalesce((SELECT string_agg(c.class || chr(160) || c.n_replies, ', ' ORDER BY c.n_replies DESC, c.ordinal) FROM overview_classes c
    WHERE c.arm = o.arm AND c.scope = 'route' AND c.route = o.route AND c.counts_as = 'non_answer'), '') AS non_answer_classes,
  o.no_reply_rate, o.no_reply_ci_low, o.no_reply_ci_high,
  coalesce((SELECT string_agg(c.class || chr(160) || c.n_replies, ', ' ORDER BY c.n_replies DESC, c.ordinal) FROM overview_classes c
    WHERE c.arm = o.arm AND c.scope = 'route' AND c.route = o.route AND c.counts_as = 'no_reply'), '') AS no_reply_classes
FROM overview o
WHERE o.arm = 'default' AND o.scope = 'route'
ORDER BY o.non_answer_rate DESC, o.no_reply_rate DESC, o.n_samples DESC, o.route
