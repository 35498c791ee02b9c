"""NumPy's semantics as the translator models them, apart from the AST
walk: the values a program computes (values.py: views, expression trees,
index expressions), which names a statement binds and reads
(bindings.py), the aliasing checks between arrays (aliasing.py), indexing
(indexing.py: basic and advanced subscripts) and operators with their
broadcasting and result dtypes (operators.py). aliasing, indexing and
operators are mixins of frontend.translator.Translator."""
