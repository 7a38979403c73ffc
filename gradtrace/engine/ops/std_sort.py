"""The order libstdc++'s selection algorithms leave equal keys in, swap by swap: `std::sort`
(an introsort: median-of-three unguarded partitions above 16 elements, a heapsort past its
depth limit, a final insertion sort), `std::partial_sort` (heap_select, then sort_heap) and
`std::nth_element` (introselect), none of them stable; and torch's own
`quick_select_template` (Sorting.cpp, Sedgewick's quickselect). torch's CPU kernels run them
on (value, index) pairs comparing values only (mode, sort, topk, kthvalue, nanmedian), so
which index lands where among equal values follows these exact sequences of swaps.

Each takes `keys`, whose `<` is the kernel's comparator, and returns or permutes `items`,
positions into `keys`.
"""
from __future__ import annotations

from typing import Any

_THRESHOLD = 16  # libstdc++'s _S_threshold


def std_sort_order(keys: list[Any]) -> list[int]:
    """The positions of `keys` in the order `std::sort(first, last, key less)` leaves them."""
    items = list(range(len(keys)))
    sort_range(keys, items, 0, len(items))
    return items


def partial_sort_order(keys: list[Any], middle: int) -> list[int]:
    """The positions of `keys` as `std::partial_sort(first, first + middle, last)` leaves
    them: the first `middle` are the smallest, sorted."""
    items = list(range(len(keys)))
    _heap_select(keys, items, 0, middle, len(items))
    _sort_heap(keys, items, 0, middle)
    return items


def nth_element_order(keys: list[Any], nth: int) -> list[int]:
    """The positions of `keys` as `std::nth_element(first, first + nth, last)` leaves them."""
    items = list(range(len(keys)))
    n = len(items)
    if nth >= n:
        return items
    first, last, depth = 0, n, 2 * (n.bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(keys, items, first, nth + 1, last)
            items[first], items[nth] = items[nth], items[first]
            return items
        depth -= 1
        cut = _partition_pivot(keys, items, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(keys, items, first, last)
    return items


def sort_range(keys: list[Any], items: list[int], first: int, last: int) -> None:
    """`std::sort(first, last)` of `items[first:last]`, in place."""
    if last - first > 1:
        _introsort_loop(keys, items, first, last, 2 * ((last - first).bit_length() - 1))
        _final_insertion_sort(keys, items, first, last)


def quick_select_order(keys: list[Any], k: int) -> list[int]:
    """The positions of `keys` as torch's `quick_select_template(arr, k, gt_or_nan, swap)`
    leaves them, its `gt_or_nan(x, y)` being `y < x` on keys."""
    items = list(range(len(keys)))
    lo, hi = 0, len(items) - 1
    while hi > lo:
        if hi == lo + 1:
            if keys[items[hi]] < keys[items[lo]]:
                items[lo], items[hi] = items[hi], items[lo]
            return items
        mid = (lo + hi) >> 1
        items[mid], items[lo + 1] = items[lo + 1], items[mid]
        for a, b in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            if keys[items[b]] < keys[items[a]]:
                items[a], items[b] = items[b], items[a]
        i, j, pivot = lo + 1, hi, keys[items[lo]]
        while True:
            i += 1
            while keys[items[i]] < pivot:
                i += 1
            j -= 1
            while pivot < keys[items[j]]:
                j -= 1
            if j < i:
                break
            items[i], items[j] = items[j], items[i]
        items[lo], items[j] = items[j], items[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return items


def _introsort_loop(keys: list[Any], items: list[int], first: int, last: int,
                    depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(keys, items, first, last, last)  # std::__partial_sort(first, last, last)
            _sort_heap(keys, items, first, last)
            return
        depth -= 1
        cut = _partition_pivot(keys, items, first, last)
        _introsort_loop(keys, items, cut, last, depth)
        last = cut


def _partition_pivot(keys: list[Any], items: list[int], first: int, last: int) -> int:
    mid = first + (last - first) // 2
    a, b, c = first + 1, mid, last - 1
    ka, kb, kc = keys[items[a]], keys[items[b]], keys[items[c]]
    if ka < kb:
        pick = b if kb < kc else c if ka < kc else a
    else:
        pick = a if ka < kc else c if kb < kc else b
    items[first], items[pick] = items[pick], items[first]
    pivot = keys[items[first]]
    lo, hi = first + 1, last
    while True:
        while keys[items[lo]] < pivot:
            lo += 1
        hi -= 1
        while pivot < keys[items[hi]]:
            hi -= 1
        if not lo < hi:
            return lo
        items[lo], items[hi] = items[hi], items[lo]
        lo += 1


def _final_insertion_sort(keys: list[Any], items: list[int], first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(keys, items, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(keys, items, i)
    else:
        _insertion_sort(keys, items, first, last)


def _insertion_sort(keys: list[Any], items: list[int], first: int, last: int) -> None:
    for i in range(first + 1, last):
        if keys[items[i]] < keys[items[first]]:
            value = items[i]
            items[first + 1:i + 1] = items[first:i]
            items[first] = value
        else:
            _linear_insert(keys, items, i)


def _linear_insert(keys: list[Any], items: list[int], last: int) -> None:
    value = items[last]
    key = keys[value]
    while key < keys[items[last - 1]]:
        items[last] = items[last - 1]
        last -= 1
    items[last] = value


def _heap_select(keys: list[Any], items: list[int], first: int, middle: int,
                 last: int) -> None:
    """make_heap(first, middle), then every later item less than the top replaces it."""
    length = middle - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(keys, items, first, parent, length, items[first + parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if keys[items[i]] < keys[items[first]]:
            value = items[i]
            items[i] = items[first]
            _adjust_heap(keys, items, first, 0, length, value)


def _sort_heap(keys: list[Any], items: list[int], first: int, last: int) -> None:
    while last - first > 1:
        last -= 1
        value = items[last]
        items[last] = items[first]
        _adjust_heap(keys, items, first, 0, last - first, value)


def _adjust_heap(keys: list[Any], items: list[int], first: int, hole: int, length: int,
                 value: int) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[items[first + child]] < keys[items[first + child - 1]]:
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[items[first + parent]] < keys[value]:
        items[first + hole] = items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    items[first + hole] = value
