"""Prose told from code by its words, per language.

Why: an answer that is one sentence of prose must be `no_code`, whatever punctuation the sentence happens to hold
("... is available at:", "(using OpenMP)", "y = a*x + y"). Punctuation cannot tell the two apart; words can: a
sentence strings plain words together with nothing but spaces between them, and code does not. In code, words
that follow each other without an operator are the language's keywords and types with at most two names of the
writer's own (`for i in range`, `double precision function f`, `static MyType my_func`, `KOKKOS_INLINE_FUNCTION
void operator`); a run of three or more plain words that are no keyword of the language is a sentence.
"""

from __future__ import annotations

import keyword
import re

_CPP = set("""
alignas alignof and asm auto bool break case catch char char16_t char32_t char8_t class const constexpr consteval
constinit const_cast continue decltype default delete do double dynamic_cast else enum explicit export extern false
float for friend goto if inline int long mutable namespace new noexcept not nullptr operator or private protected
public register reinterpret_cast return short signed sizeof static static_assert static_cast struct switch template
this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
size_t int32_t int64_t uint32_t uint64_t define include pragma ifdef ifndef endif undef elif omp acc parallel
target teams distribute simd reduction private shared firstprivate lastprivate collapse schedule data copy copyin
copyout present kernels loop gang vector worker
""".split())
_FORTRAN = set("""
program end subroutine function module contains use implicit none integer real double precision complex logical
character type intent in out inout dimension allocatable pointer target parameter optional save call do while if
then else elseif endif enddo select case default where forall return stop exit cycle go to print write read open
close allocate deallocate pure elemental recursive result interface procedure public private only kind len value
bind associate block critical concurrent omp acc parallel loop private shared reduction collapse schedule data copy
copyin copyout present kernels gang vector worker simd target teams distribute map tofrom from
""".split())
_JULIA = set("""
function end for in while if elseif else return begin let local global const struct mutable abstract type module
using import export macro quote do try catch finally break continue where true false nothing
""".split())
KEYWORDS = {"cpp": _CPP, "fortran": _FORTRAN, "julia": _JULIA,
            "python": set(keyword.kwlist) | set(keyword.softkwlist) | {"print", "range", "self"}}
_RUN = re.compile(r"[A-Za-z_]\w*(?:[ \t]+[A-Za-z_]\w*)+")
PLAIN_WORDS = 3


def prose_line(line: str, language: str) -> bool:
    """A line holding a run of PLAIN_WORDS or more words, separated by spaces only, that are no keyword of the
    language (names like __global__ or KOKKOS_INLINE_FUNCTION count as keywords: vendor qualifiers)."""
    known = KEYWORDS.get(language, set())
    for run in _RUN.finditer(line):
        words = run.group(0).split()
        plain = [w for w in words if w.lower() not in known and not (w.startswith("__") or w.isupper() and "_" in w)]
        if len(plain) >= PLAIN_WORDS:
            return True
    return False


def code_lines(body: str, language: str) -> str:
    """The lines of `body` (comments and strings already removed) that are not prose."""
    return "\n".join(ln for ln in body.split("\n") if not prose_line(ln, language))
