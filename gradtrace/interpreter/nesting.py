"""Deep nesting must end in a RecursionError, never in a C stack overflow (issue 16).

Python's C code recurses into nested values. Most of it counts the recursion against
`sys.getrecursionlimit()` (repr, ==, <, `in` of lists and dicts, generator and Python
frames), so two things keep those safe: the C stack is made big enough for the
recursion limit (`reserve_stack`), and the few C recursions that are not counted are
never handed a deep value:

- a tuple's hash (CPython 3.11 `tuplehash`) recurses into nested tuples unchecked:
  every place a script value is hashed (dict and set keys, displays, `in` a dict or
  set, `hash()`, dict and set methods and constructors) first measures the tuple's
  nesting (`check_hashable`), as deep as Python's own recursion limit allows;
- `zip` and `enumerate` objects call their iterators' `next` (and free them) in C,
  unchecked: one wrapping another gets the inner one behind a Python method
  (`unnest`), whose frames are counted, so a chain of 10^6 is a RecursionError when
  it is iterated.

Measured (AVX2 machine, Python 3.11, 8 MiB stack, recursion limit lifted): deep list
repr and dict == overflow between 40,000 and 80,000 levels (100-200 bytes a level),
generator chains between 20,000 and 40,000 (200-400 bytes), tuple hash near 150,000,
zip between 100,000 and 1,000,000, and freeing 10^6 nested enumerates overflows.
"""
from __future__ import annotations

import resource
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any

# C stack a counted recursion level may use: twice the worst measured (generator chains)
BYTES_PER_LEVEL = 1024
# what the interpreter's own frames below the script need
BASE_STACK = 8 << 20
# Linux leaves at least 128 MiB between the main thread's stack and the memory map;
# the stack is not grown past this much
MAX_STACK = 112 << 20
# a pthread's stack when Python was not told its size (glibc's default, 8 MiB)
THREAD_STACK = 8 << 20
# containers that hash what is looked up or stored in them
HASHED = (dict, set, frozenset, type({}.keys()), type({}.items()))
# the operators of sets and dict views, which hash their other operand's items
SET_OPERATORS = frozenset("|&-^")
# containers whose items `check_all_hashable` may walk (a lazy iterable would be used up)
_BUILT = (list, tuple, set, frozenset, dict, type({}.keys()), type({}.items()),
          type({}.values()))
# iterators whose `next` and deallocation recurse in C without counting
_UNCOUNTED = (zip, enumerate)


def reserve_stack(levels: int) -> int:
    """Make room on the C stack for `levels` counted recursion levels where possible
    (the main thread's stack grows up to its soft limit, which a process may raise to
    its hard limit), and return how many levels the stack can hold: the recursion
    limit to use."""
    if threading.current_thread() is threading.main_thread():
        want = min(BASE_STACK + levels * BYTES_PER_LEVEL, MAX_STACK)
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        if soft != resource.RLIM_INFINITY and soft < want:
            new = want if hard == resource.RLIM_INFINITY else min(want, hard)
            try:
                resource.setrlimit(resource.RLIMIT_STACK, (new, hard))
                soft = new
            except (ValueError, OSError):
                pass
        stack = want if soft == resource.RLIM_INFINITY else min(soft, want)
    else:
        stack = threading.stack_size() or THREAD_STACK
    return max(1000, min(levels, (stack - BASE_STACK // 2) // BYTES_PER_LEVEL))


def check_hashable(value: Any) -> None:
    """Refuse to hash a tuple nested deeper than the recursion limit (Python's C hash
    would overflow the stack): the RecursionError Python gives for its repr."""
    if type(value) is not tuple:
        return
    limit = sys.getrecursionlimit()
    pending = [(value, 1)]
    while pending:
        items, depth = pending.pop()
        if depth > limit:
            raise RecursionError("maximum recursion depth exceeded while hashing a tuple")
        for item in items:
            if type(item) is tuple:
                pending.append((item, depth + 1))


def check_all_hashable(values: Iterable[Any]) -> None:
    """`check_hashable` of each item of a container about to be hashed item by item
    (and of each key of (key, value) pairs, which are tuples themselves); a lazy
    iterable is left alone (the callers build one first where it is hashed)."""
    if isinstance(values, _BUILT):
        for value in values:
            check_hashable(value)


def unnest(value: Any) -> Any:
    """An argument of zip/enumerate: a zip or enumerate object is put behind a Python
    method, so that nesting them is counted against the recursion limit."""
    if type(value) in _UNCOUNTED:
        return Counted(value)
    return value


class Counted:
    """An iterator whose `next` is a Python frame. (Not a generator: a RecursionError
    unwinding through 14,000 `yield from` frames takes seconds, through these 50 ms.)"""

    __slots__ = ("it",)

    def __init__(self, it: Iterator[Any]):
        self.it = it

    def __iter__(self) -> Counted:
        return self

    def __next__(self) -> Any:
        return next(self.it)
