-- output: report_worst_cells
-- kind: query
-- grain: one row per eval × route of the default arm with a non-answer, the ten with the highest share
-- measure: Non-answer rates (pre-registration §5 "Class rates", pooled over the non-answer classes; §6 Wilson intervals with the sample as the unit): the first screen's cells where non-answers are most frequent, each with its samples, interval and non-answer classes by replies
-- needs: non_answer_rates, class_rates
-- columns: eval, route, n_samples, non_answer_rate, non_answer_ci_low, non_answer_ci_high, non_answer_classes, no_reply_rate, no_reply_ci_low, no_reply_ci_high
-- derived: non_answer_classes: identifier, classes (replies)
--
-- $classes is the list of classes that count as a non-answer always or where no tools were
-- offered, from the classifier's vocabulary.
SELECT r.eval, r.route, r.n_samples, r.non_answer_rate, r.non_answer_ci_low, r.non_answer_ci_high,
  coalesce((SELECT string_agg(c.class || chr(160) || c.n_class_replies, ', ' ORDER BY c.n_class_replies DESC, c.class) FROM class_rates c
    WHERE c.eval = r.eval AND c.profiled = r.profiled AND c.route = r.route AND c.arm = r.arm
      AND c.n_class_replies > 0 AND list_contains($classes, c.class)), '') AS non_answer_classes,
  r.no_reply_rate, r.no_reply_ci_low, r.no_reply_ci_high
FROM non_answer_rates r
WHERE r.arm = 'default' AND r.non_answer_rate > 0
ORDER BY r.non_answer_rate DESC, r.n_samples DESC, r.eval, r.route
LIMIT 10
