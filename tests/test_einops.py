"""einops as real PyTorch code uses it (gradtrace/lib/einops*.gt, bundled, not a dependency):
each script prints what python + torch 2.13 + einops 0.8.2 print (values, grad_fn nodes and
their next_functions, gradients after backward, EinopsError messages, layer reprs); these
compare with the real einops (a test extra) and skip without it or torch."""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from script_runs import address_free, file_runs, gradtrace_output, torch_output

from gradtrace.runner import run_text

# prints a node and the nodes under it, one line each, indented by depth
GRAPH = textwrap.dedent("""\
    import torch
    import einops
    from einops import rearrange, reduce, repeat, einsum, pack, unpack, parse_shape
    from einops.layers.torch import Rearrange, Reduce, EinMix
    def graph(t, depth=0):
        fn = t.grad_fn if depth == 0 else t
        if fn is None:
            print('  ' * depth + 'None')
            return
        print('  ' * depth + type(fn).__name__)
        for nxt, nr in fn.next_functions:
            if nxt is not None and type(nxt).__name__ != 'AccumulateGrad':
                graph(nxt, depth + 1)
            else:
                print('  ' * (depth + 1) + str(type(nxt).__name__), nr)
    def show(y, *leaves):
        print(y.shape, y.is_contiguous())
        print(y)
        graph(y)
        if y.requires_grad:
            (y.float() * torch.arange(y.numel()).reshape(y.shape)).sum().backward()
            for leaf in leaves:
                print(leaf.grad)
                leaf.grad = None
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 6, requires_grad=True)
    """)


def _same(body: str) -> None:
    """The script (GRAPH's helpers, then `body`) prints under gradtrace what it prints under
    python + torch + einops (addresses aside)."""
    pytest.importorskip("torch")
    pytest.importorskip("einops")
    script = GRAPH + textwrap.dedent(body)
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


OPERATIONS = {
    "vit_patches": "show(rearrange(x, 'b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=3), x)",
    "transpose_only": "show(rearrange(x, 'b c h w -> b h w c'), x)",
    "identity": "show(rearrange(x, 'b c h w -> b c h w'), x)",
    "flatten_view": "show(rearrange(x, 'b c h w -> b (c h w)'), x)",
    "split_and_merge": "show(rearrange(x, 'b c (h1 h2) w -> (b h1) c (h2 w)', h1=2), x)",
    "ellipsis": "show(rearrange(x, 'b ... w -> w b ...'), x)",
    "ellipsis_grouped": "show(rearrange(x, 'b ... -> b (...)'), x)",
    "ellipsis_middle": "show(rearrange(x, '... h w -> ... (w h)'), x)",
    "unit_axes": "show(rearrange(x, 'b c h w -> b 1 c h w ()'), x)",
    "drop_unit_axes": "show(rearrange(x[:, :1], 'b 1 h w -> b h w'), x)",
    "list_input": "show(rearrange([x[0], x[1]], 'b c h w -> c (b h) w'), x)",
    "list_error_mentions_shape": """\
        try:
            rearrange([x[0], x[1]], 'b c h -> b c')
        except einops.EinopsError as e:
            print(e)
        """,
    "sum": "show(reduce(x, 'b c h w -> b c', 'sum'), x)",
    "mean": "show(reduce(x, 'b c h w -> c', 'mean'), x)",
    "max_pool": "show(reduce(x, 'b c (h 2) (w 2) -> b c h w', 'max'), x)",
    "min_keep_unit": "show(reduce(x, 'b c h w -> b c 1 1', 'min'), x)",
    "prod": "show(reduce(x, 'b c h w -> h b', 'prod'), x)",
    "mean_composite": "show(reduce(x, 'b c (h h2) (w w2) -> b h (c w)', 'mean', h2=2, w2=3), x)",
    "callable_reduction": "show(reduce(x, 'b c h w -> b w', lambda t, axes: t.logsumexp(axes)), x)",
    "torch_function_reduction": "show(reduce(x, 'b c h w -> b', torch.sum), x)",
    "any_all": """\
        m = x > 0
        print(reduce(m, 'b c h w -> b c', 'any'), reduce(m, 'b c h w -> c', 'all'))
        """,
    "repeat_new_axis": "show(repeat(x[0, 0], 'h w -> c h w', c=3), x)",
    "repeat_tile": "show(repeat(x[0, 0], 'h w -> (r h) w', r=2), x)",
    "repeat_upsample": "show(repeat(x[0], 'c h w -> c (h 2) (w w2)', w2=2), x)",
    "repeat_cls_token": """\
        cls = torch.randn(1, 1, 5, requires_grad=True)
        show(repeat(cls, '1 1 d -> b 1 d', b=4), cls)
        """,
    "einsum_matmul": """\
        w = torch.randn(6, 5, requires_grad=True)
        show(einsum(x, w, 'b c h w, w d -> b c h d'), x, w)
        """,
    "einsum_attention": """\
        q = torch.randn(2, 4, 3, requires_grad=True)
        k = torch.randn(2, 5, 3, requires_grad=True)
        show(einsum(q, k, 'batch i d, batch j d -> batch i j'), q, k)
        """,
    "einsum_trace_and_ellipsis": """\
        m = torch.randn(3, 3, requires_grad=True)
        show(einsum(m, 'i i ->'), m)
        show(einsum(x, '... w -> w ...'), x)
        """,
    "pack_unpack": """\
        a = torch.randn(2, 3, 5, requires_grad=True)
        b = torch.randn(2, 3, 7, 5, requires_grad=True)
        packed, ps = pack([a, b], 'i j * k')
        print(ps)
        show(packed, a, b)
        outs = unpack(packed * 2, ps, 'i j * k')
        for o in outs:
            print(o.shape)
            graph(o)
        unpacked = unpack(packed, [[-1], [7]], 'i j * k')
        print([u.shape for u in unpacked])
        """,
    "parse_shape": """\
        print(parse_shape(x, 'b c h w'), parse_shape(x, 'b _ h _'), parse_shape(x, '... w'))
        print(rearrange(x, 'b c h w -> (b c) h w').shape, parse_shape(x[:, :1], 'b 1 h w'))
        y = torch.zeros(144)
        print(rearrange(y, '(b c h w) -> b c h w', **parse_shape(x, 'b c h _')).shape)
        """,
    "asnumpy": "print(einops.asnumpy(x[0, 0]), type(einops.asnumpy(x)).__name__)",
    "int_tensor": "print(rearrange(torch.arange(24), '(a b c) -> c a b', a=2, b=3))",
    "version": "print(einops.__version__, einops.__all__)",
    "numpy_arrays": """\
        import numpy as np
        a = np.arange(24.).reshape(2, 3, 4)
        print(rearrange(a, 'a b (c d) -> (a c) b d', d=2), reduce(a, 'a b c -> b', 'max'))
        print(reduce(a, 'a b c -> a 1 c', 'mean'), reduce(a, 'a b c -> c', 'prod'))
        print(reduce(a > 3, 'a b c -> a', 'all'), repeat(a[0, 0], 'c -> (c 2)'))
        print(repeat(a[0], 'b c -> b r c', r=2).shape, einsum(a, a, 'a b c, a b d -> c d'))
        p, ps = pack([a, a[:, :, 0]], 'a b *')
        print(p.shape, ps, [u.shape for u in unpack(p, ps, 'a b *')])
        print(parse_shape(a, 'a _ c'), einops.asnumpy(a) is a)
        print(rearrange([a[0], a[1]], 'n b c -> b (n c)').shape)
        try:
            rearrange(a, 'a b -> b a')
        except einops.EinopsError as e:
            print(e)
        """,
}


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_an_operation_prints_and_records_what_einops_does(name):
    _same(OPERATIONS[name])


ERRORS = {
    "one_side": "rearrange(x, 'b c h w -> b c h')",
    "wrong_dims": "rearrange(x, 'b c h -> b c h')",
    "too_few_dims": "rearrange(x[0, 0], 'a b c ... -> a')",
    "shape_mismatch": "rearrange(x, 'b c (h h2) w -> b c h h2 w', h2=3)",
    "mismatch_known": "rearrange(x, 'b c (h h2) w -> b c h h2 w', h=3, h2=3)",
    "infer": "rearrange(x, 'b c (h h2) w -> b c h h2 w')",
    "unused_axis": "rearrange(x, 'b c h w -> b c h w', k=2)",
    "anonymous_in_rearrange": "rearrange(x, 'b c (h 2) w -> b c h 2 w')",
    "duplicate": "rearrange(x, 'b b h w -> b h w')",
    "brackets_nested": "rearrange(x, 'b c ((h w)) -> b c h w')",
    "brackets_open": "rearrange(x, 'b c (h w -> b c h w')",
    "brackets_close": "rearrange(x, 'b c h w) -> b c h w')",
    "unknown_char": "rearrange(x, 'b c h w -> b-c h w')",
    "dots": "rearrange(x, 'b c h w -> b c h. w')",
    "two_ellipses": "rearrange(x, 'b ... c ... -> b c')",
    "ellipsis_right_only": "rearrange(x, 'b c h w -> b c h w ...')",
    "ellipsis_parenthesized_left": "rearrange(x, 'b (...) -> b ...')",
    "invalid_name": "rearrange(x, 'b c h _w -> b c h _w')",
    "invalid_kwarg_name": "rearrange(x, 'b c h w -> b c h w', _h=2)",
    "repeat_no_size": "repeat(x, 'b c h w -> b c h w r')",
    "repeat_left_only": "repeat(x, 'b c h w -> b c h')",
    "reduce_new_axis": "reduce(x, 'b c h w -> b c h w k', 'sum')",
    "unknown_reduction": "reduce(x, 'b c h w -> b c', 'median')",
    "mean_of_ints": "reduce(torch.arange(6).reshape(2, 3), 'a b -> a', 'mean')",
    "mean_of_numpy_ints": "import numpy; reduce(numpy.arange(6).reshape(2, 3), 'a b -> a', 'mean')",
    "empty_list": "rearrange([], 'a -> a')",
    "tuple_input": "rearrange((x, x), 'a b c d e -> a')",
    "not_a_tensor": "rearrange(3, 'a -> a')",
    "anonymous_one_side": "reduce(x, 'b c h w -> b c h 0', 'sum')",
    "pack_no_star": "pack([x], 'b c')",
    "pack_duplicates": "pack([x], 'b b *')",
    "pack_invalid_name": "pack([x], 'b _c *')",
    "pack_too_few_dims": "pack([x, x[0, 0]], 'a b c *')",
    "unpack_wrong_dim": "unpack(x, [[2]], 'a *')",
    "unpack_two_unknown": "unpack(x, [[-1], [-1]], 'a b c *')",
    "unpack_bad_split": "unpack(x, [[4], [3]], 'a b c *')",
    "parse_shape_composite": "parse_shape(x, 'b (c h) w')",
    "parse_shape_ndim": "parse_shape(x, 'b c h')",
    "parse_shape_ellipsis_ndim": "parse_shape(x[0, 0], 'a b c ...')",
    "parse_shape_unit": "parse_shape(x, 'b 1 h w')",
    "parse_shape_anonymous": "parse_shape(x, 'b 4 h w')",
    "einsum_no_arrow": "einsum(x, 'b c h w')",
    "einsum_no_pattern": "einsum(x)",
    "einsum_pattern_not_str": "einsum(x, x)",
    "einsum_unknown_right": "einsum(x, 'b c h w -> b k')",
    "einsum_composite": "einsum(x, 'b c (h w) -> b c')",
    "einsum_anonymous": "einsum(x, 'b c 4 w -> b c')",
    "einsum_unit": "einsum(x, 'b c () w -> b c')",
    "layer_bad_pattern": "Rearrange('a b -> a c')",
    "layer_wrong_ndim": "Rearrange('a b -> b a')(x)",
    "reduce_layer_any": "Reduce('b c h w -> b', 'any')(x > 0)",
    "reduce_layer_callable": "print(Reduce('b c h w -> b', torch.sum))",
    "reduce_layer_mean_of_ints": "Reduce('a b -> a', 'mean')(torch.ones(2, 2, dtype=torch.long))",
    "einmix_unspecified": "EinMix('a b -> a c', weight_shape='b c', b=6)",
    "einmix_unused": "EinMix('a b -> a c', weight_shape='b c', b=6, c=2, d=3)",
    "einmix_redundant": "EinMix('a b -> a c', weight_shape='b c e', b=6, c=2, e=3)",
    "einmix_anonymous": "EinMix('a (b 2) -> a c', weight_shape='b c', b=6, c=2)",
    "einmix_parenthesis": "EinMix('a b c -> a d', weight_shape='(b c) d', b=6, c=2, d=3)",
    "einmix_ellipsis_one_side": "EinMix('a ... b -> a c', weight_shape='b c', b=6, c=2)",
    "einmix_bias_not_in_output": "EinMix('a b -> a c', 'b c', 'b', b=6, c=2)",
    "einmix_right_unknown": "EinMix('a b -> a c k', weight_shape='b c', b=6, c=2)",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_a_misuse_raises_what_einops_raises(name):
    _same(f"""\
        try:
            {ERRORS[name]}
        except Exception as e:
            print(type(e).__name__, type(e).__module__, e)
        """)


def test_an_uncaught_einops_error_ends_the_script_as_einops_error(tmp_path):
    """Python's last traceback lines name the class by its module: einops.EinopsError."""
    pytest.importorskip("torch")
    pytest.importorskip("einops")
    script = GRAPH + "rearrange(x, 'b c h w -> b c (h w) k')\n"
    torch_run, result, _ = file_runs(script, tmp_path, "uncaught")
    assert result.error.kind == "einops.EinopsError"
    message = torch_run.stderr.split("einops.EinopsError: ", 1)[1]
    assert f"{result.error.kind}: {result.error.message}\n" == f"einops.EinopsError: {message}"


def test_layers_print_and_train_as_with_einops():
    _same("""\
        model = torch.nn.Sequential(
            Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=2),
            torch.nn.Linear(12, 8),
            Reduce('b n d -> b d', 'mean'),
            EinMix('b d -> b e', weight_shape='d e', bias_shape='e', d=8, e=5),
        )
        print(model)
        y = model(torch.randn(2, 3, 4, 4))
        show(y)
        for name, p in model.named_parameters():
            print(name, p.shape, p.grad)
        print(Reduce('b c (h 2) (w 2) -> b c h w', 'max'), Rearrange('b ... -> b (...)'))
        """)


def test_einmix_with_composite_axes_and_ellipsis():
    _same("""\
        mix = EinMix('t b (h c) -> t b (h e)', weight_shape='h c e', h=2, c=3, e=4)
        print(mix, mix.einsum_pattern, mix.pre_rearrange, mix.post_rearrange)
        inp = torch.randn(5, 2, 6, requires_grad=True)
        show(mix(inp), inp, mix.weight)
        print(list(dict(mix.named_modules())), [n for n, _ in mix.named_parameters()])
        mix2 = EinMix('... c -> ... (c2 k)', weight_shape='c c2 k', bias_shape='k',
                      c=6, c2=2, k=3)
        print(mix2.bias.shape, mix2.post_rearrange)
        show(mix2(inp), inp)
        """)


def test_reduce_layer_with_a_callable_builds_but_its_forward_refuses():
    _same("""\
        layer = Reduce('b c h w -> b', torch.sum)
        try:
            layer(x)
        except NotImplementedError as e:
            print(e.args[0], e.args[1] is torch.sum)
        """)


def test_axis_name_warnings_come_once_from_each_place_in_einops():
    """Python's default filter shows a warning once per place: einops warns from its
    parsing.py (twice there, per pattern side and per keyword argument), packing.py and
    _einmix.py, whatever line of the script called."""
    _same("""\
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            rearrange(x, 'for b c d -> b for c d')
            rearrange(x, 'for c b d -> c for b d')
            rearrange(x, 'a b c d -> (a b) c d', a=2)
            rearrange(x, 'axis b c d -> b axis c d')
            pack([x], 'for *')
            EinMix('a b -> a b', weight_shape='')
            EinMix('a c -> a c', weight_shape='')
        print([(w.category.__name__, str(w.message)) for w in caught])
        """)


def test_a_pattern_is_parsed_once_so_its_warnings_come_once():
    """einops caches each pattern's recipe: a keyword as an axis name warns the first time
    the pattern is used only, even when every warning is shown."""
    _same("""\
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                y = rearrange(x, 'b c h for -> b c h for')
            y = rearrange(x, 'b c h axis -> b c h axis')
            layer = Rearrange('b c h for -> b c h for')
        print(y.shape, [(w.category.__name__, str(w.message)) for w in caught])
        """)


_AXES = "abcdef"


@st.composite
def _rearrangements(draw, reduction=False):
    """A shape and a rearrange pattern over it: a random order of its axes, grouped into
    composite axes at random on both sides (the lengths given as keyword arguments); with
    `reduction`, the right side keeps some of the axes only."""
    n = draw(st.integers(1, 4))
    lengths = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    order = draw(st.permutations(list(range(n))))

    def grouped(axes):
        """The side's text and its dims' lengths."""
        text, dims, i = [], [], 0
        while i < len(axes):
            size = draw(st.integers(1, len(axes) - i))
            part = " ".join(_AXES[a] for a in axes[i:i + size])
            text.append(f"({part})" if size > 1 or draw(st.booleans()) else part)
            dims.append(_prod([lengths[a] for a in axes[i:i + size]]))
            i += size
        return " ".join(text), dims

    left, dims = grouped(list(range(n)))
    kept = order[:draw(st.integers(0 if reduction else n, n))]
    right, _ = grouped(kept) if kept else ("", [])
    return dims, f"{left} -> {right}", {_AXES[a]: lengths[a] for a in range(n)}


@settings(max_examples=15, deadline=None)
@given(_rearrangements())
def test_random_rearrangements_match_einops(case):
    dims, pattern, kwargs = case
    _same(f"""\
        t = torch.arange({max(1, _prod(dims))}.).reshape({tuple(dims)!r}).requires_grad_()
        show(rearrange(t, {pattern!r}, **{kwargs!r}), t)
        """)


@settings(max_examples=15, deadline=None)
@given(_rearrangements(reduction=True), st.sampled_from(["sum", "mean", "max", "min", "prod"]))
def test_random_reductions_match_einops(case, reduction):
    dims, pattern, kwargs = case
    _same(f"""\
        t = (torch.arange({max(1, _prod(dims))}.) % 7 - 3).reshape({tuple(dims)!r})
        t.requires_grad_()
        show(reduce(t, {pattern!r}, {reduction!r}, **{kwargs!r}), t)
        """)


def _prod(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def test_without_the_real_einops_the_bundled_one_still_prints_its_layers():
    """gradtrace's own answer, with no torch or einops needed: the module repr."""
    result = run_text("import torch\nfrom einops.layers.torch import Rearrange\n"
                      "print(torch.nn.Sequential(Rearrange('b c h w -> b (c h w)')))\n")
    assert result.error is None
    assert result.stdout == ("Sequential(\n  (0): Rearrange('b c h w -> b (c h w)')\n)\n")


def test_reductions_of_a_permuted_tensor_are_contiguous_as_torch_makes_them():
    """Found by the random reductions: amax/amin/any/all of a permuted tensor kept numpy's
    order of the input (strides (1, 12, 4)); torch's reduction output is contiguous
    (measured with torch 2.13: the strides below)."""
    result = run_text(textwrap.dedent("""\
        import torch
        t = torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
        print(t.amax(dim=1, keepdim=True).stride(), t.amin(dim=(0, 1)).stride())
        print(t.any(dim=1).stride(), t.all(dim=2).stride(), t.amax(dim=2).is_contiguous())
        print(t.amax().shape, t.any().shape)
        """))
    assert result.error is None, result.error
    assert result.stdout == "(3, 3, 1) (1,)\n(3, 1) (2, 1) True\ntorch.Size([]) torch.Size([])\n"
