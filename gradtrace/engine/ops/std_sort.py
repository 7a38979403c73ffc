"""The order libstdc++'s `std::sort` leaves equal keys in: an introsort (median-of-three
unguarded partitions above 16 elements, a heapsort past its depth limit, a final insertion
sort) that is not stable. torch's CPU `mode` sorts (value, index) pairs with it, comparing
values only, and reports the index its sort leaves last among the mode's copies, so which
index that is follows this exact sequence of swaps.
"""
from __future__ import annotations

from typing import Any

_THRESHOLD = 16  # libstdc++'s _S_threshold


def std_sort_order(keys: list[Any]) -> list[int]:
    """The positions of `keys` in the order `std::sort(first, last, key less)` leaves them."""
    items = list(range(len(keys)))
    n = len(items)
    if n > 1:
        _introsort_loop(keys, items, 0, n, 2 * (n.bit_length() - 1))
        _final_insertion_sort(keys, items, 0, n)
    return items


def _less(keys: list[Any], a: int, b: int) -> bool:
    return keys[a] < keys[b]


def _introsort_loop(keys: list[Any], items: list[int], first: int, last: int,
                    depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(keys, items, first, last)
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


def _heap_sort(keys: list[Any], items: list[int], first: int, last: int) -> None:
    """std::__partial_sort(first, last, last): make_heap, then sort_heap."""
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(keys, items, first, parent, length, items[first + parent])
            if parent == 0:
                break
            parent -= 1
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


def std_topk_order(keys: list[Any], k: int, sort_selected: bool) -> list[int]:
    """The positions torch's CPU topk reports (aten's topk_impl_loop): `std::partial_sort`
    of the first k when k * 64 <= n, else `std::nth_element` at k - 1 followed, when the
    result is to be sorted, by `std::sort` of the first k - 1; `keys` order as the kernel's
    comparator does (the wanted end first)."""
    n = len(keys)
    items = list(range(n))
    if k <= 0:
        return []
    if k * 64 <= n:
        _heap_select(keys, items, 0, k, n)
        _sort_heap(keys, items, 0, k)
        return items[:k]
    if k - 1 < n:
        _introselect(keys, items, 0, k - 1, n, 2 * (n.bit_length() - 1))
    if sort_selected and k - 1 > 1:
        _introsort_loop(keys, items, 0, k - 1, 2 * ((k - 1).bit_length() - 1))
        _final_insertion_sort(keys, items, 0, k - 1)
    return items[:k]


def _introselect(keys: list[Any], items: list[int], first: int, nth: int, last: int,
                 depth: int) -> None:
    """libstdc++'s std::__introselect (nth_element)."""
    while last - first > 3:
        if depth == 0:
            _heap_select(keys, items, first, nth + 1, last)
            items[first], items[nth] = items[nth], items[first]
            return
        depth -= 1
        cut = _partition_pivot(keys, items, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(keys, items, first, last)


def _heap_select(keys: list[Any], items: list[int], first: int, middle: int,
                 last: int) -> None:
    """std::__heap_select: a heap of [first, middle) keeping the smallest seen."""
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
    """std::__sort_heap."""
    while last - first > 1:
        last -= 1
        value = items[last]
        items[last] = items[first]
        _adjust_heap(keys, items, first, 0, last - first, value)


def quick_select_index(values: list[Any], k: int) -> int:
    """The position torch's CPU kthvalue reports for the k-th smallest (0-based) of
    `values`: aten's quick_select_template (SortingUtils.h), a median-of-three quickselect
    that swaps values and indices together, NaN greater than every number."""
    arr = list(values)
    idx = list(range(len(arr)))

    def gt(x: Any, y: Any) -> bool:
        return (x != x and y == y) or x > y

    def swap(a: int, b: int) -> None:
        arr[a], arr[b] = arr[b], arr[a]
        idx[a], idx[b] = idx[b], idx[a]

    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while gt(pivot, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]
