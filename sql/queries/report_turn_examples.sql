-- output: report_turn_examples
-- kind: query
-- grain: one row per drawn empty turn (turn_examples), non-answer classes in the classifier's order
-- measure: Real examples of empty turns (pre-registration §4 "Exploration first: rough rates and real examples"), as the report's multi-turn section shows them: where each turn is, the turn before, the turn, the turn after, and the reply's first and final class
-- needs: turn_examples
-- columns: eval, route, sample, turn, class, before, this_turn, after, first_final, view_command
-- derived: sample: identifier, sample; turn: identifier, turn; before: text, the turn before; this_turn: text, the turn; after: text, the turn after; first_final: identifier, first → final reply
--
-- $classes is the classifier's classes in rule order (the vocabulary): the examples follow it.
--
-- A turn reads as its class, then its tool calls (the turn itself: its stop reason and
-- reasoning), then the start of its text, trimmed of white space (160 characters):
-- `tool_only · 1 tool call`, `answer: The sum is 5.`; the turn before the first and after the
-- last read (none); "3 of 4" is held on one line (no-break spaces). The sample is its id and epoch
-- in one column (`slcg · epoch 1`), so that the table of nine columns fits a page of 1400 px; the
-- page names view_command below the table instead of giving it a column.
WITH shown AS (
  SELECT *,
    CASE WHEN before_class IS NULL THEN '(none: the first turn)' ELSE before_class
      || CASE WHEN before_tool_call_count > 0 THEN ' · ' || before_tool_call_count || CASE WHEN before_tool_call_count = 1 THEN ' tool call' ELSE ' tool calls' END ELSE '' END
      || CASE WHEN regexp_replace(before_text, '^\s+|\s+$', '', 'g') <> '' THEN ': ' || left(regexp_replace(before_text, '^\s+|\s+$', '', 'g'), 160) ELSE '' END END AS before,
    class || CASE WHEN stop_reason IS NOT NULL THEN ' · stop_reason ' || stop_reason ELSE '' END
      || CASE WHEN reasoning_chars > 0 THEN ' · ' || reasoning_chars || ' chars of reasoning' ELSE '' END
      || CASE WHEN regexp_replace(text, '^\s+|\s+$', '', 'g') <> '' THEN ': ' || left(regexp_replace(text, '^\s+|\s+$', '', 'g'), 160) ELSE '' END AS this_turn,
    CASE WHEN after_class IS NULL THEN '(none: the final reply)' ELSE after_class
      || CASE WHEN after_tool_call_count > 0 THEN ' · ' || after_tool_call_count || CASE WHEN after_tool_call_count = 1 THEN ' tool call' ELSE ' tool calls' END ELSE '' END
      || CASE WHEN regexp_replace(after_text, '^\s+|\s+$', '', 'g') <> '' THEN ': ' || left(regexp_replace(after_text, '^\s+|\s+$', '', 'g'), 160) ELSE '' END END AS after
  FROM turn_examples
)
SELECT eval, route, sample_id || ' · epoch' || chr(160) || epoch AS sample, turn || chr(160) || 'of' || chr(160) || turns AS turn, class, before, this_turn, after,
  first_class || ' → ' || final_class AS first_final, view_command
FROM shown
ORDER BY list_position($classes, class), draw
