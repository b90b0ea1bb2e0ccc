"""The checks of an evaluation, one module each, run in order by `hpceval.evaluate` after binding.

Each is a `Check` (checks.base): it reads the job context and returns None to go on, or the Evaluation that ends
the job. Adding a check = one module here + one line in `evaluate.CHECKS`.
"""
