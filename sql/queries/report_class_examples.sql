-- output: report_class_examples
-- kind: query
-- grain: one row per drawn reply, non-answers first, then by class and draw
-- measure: Real examples of each class (pre-registration §3 Design, "Exploration first ... rough rates and real examples"): the report's examples, every column of class_examples, the classes in the order $classes gives (non-answers, no reply, tool_only, answers)
-- needs: class_examples
-- columns: *
--
-- Every column of class_examples: the page shows each raw field behind a toggle, and reads the
-- ones it lays out by name.
SELECT * FROM class_examples ORDER BY list_position($classes, class), class, draw
