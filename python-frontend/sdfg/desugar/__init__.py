"""AST-to-AST rewrites run on a function before it is translated, so that
the translator sees fewer constructs: returns folded into a single exit
(returns.py), break/continue turned into flags (loop_exits.py), loops over
sequences as index loops (iteration.py), and the AST helpers they share
(astutil.py: thread-safe parse, location fixing, copying)."""
