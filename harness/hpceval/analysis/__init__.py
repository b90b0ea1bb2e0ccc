"""Static analyses of suggestion source code (directives, data mapping, data sharing, C expressions).

They read code as text and never run it: the checks in `hpceval.checks` turn their findings into verdicts.
"""
