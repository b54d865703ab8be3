"""Test-equivalence analysis for test-driven repair (f1x: Mechtaev, Gao,
Tan, Roychoudhury, TOSEM'18): the search space (``candidates``,
``space``), the meta-program and its runtime (``metaprogram``,
``protocol``, ``runtime/``) and the exploration (``search``, Algorithms 2
and 3).  The scheme that drives them is ``crepair.schemes.test_driven``."""
