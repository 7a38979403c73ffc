"""Differential tests against live PyTorch 2.13 (and its Python) for the gaps the realworld
corpus's round 33 found: the PyTorch chatbot tutorial's header imports `codecs` (it
unescapes its delimiter with `codecs.decode('\\\\t', "unicode_escape")`) and `from io import
open`, which gradtrace refused at the import; the text classification tutorial's
`nn.EmbeddingBag(..., sparse=True)` trained by SGD, whose sparse COO gradient gradtrace
refused to make; nn.Transformer given a bool key padding mask and a float attention mask
(the translation tutorial), whose deprecation warning failed on its stacklevel; minGPT's
CfgNode.merge_from_args, which reads `--key=value` overrides with `ast.literal_eval` (the
`ast` module was refused); a codec's UnicodeDecodeError was not a kind a
script's `except ValueError` or `except UnicodeError` could catch.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, run_text, torch_output

torch = pytest.importorskip("torch")


CODECS = r"""import codecs
delimiter = '\\t'
delimiter = str(codecs.decode(delimiter, "unicode_escape"))
print(repr(delimiter), codecs.decode)
print(codecs.encode("h\xe9llo\n", "unicode_escape"), codecs.encode("h\xe9", "utf-8"))
print(codecs.decode(b"h\xc3\xa9", "utf-8"), codecs.decode(b"a\\nb", "raw_unicode_escape"))
print(codecs.decode(b"\xff", "latin-1", "strict"), codecs.encode("\u20ac", "ascii", "replace"))
for call in [lambda: codecs.decode(b"\xff", "utf-8"), lambda: codecs.encode("\u20ac", "ascii"),
             lambda: codecs.decode(3, "utf-8"), lambda: codecs.decode("x", "utf-8")]:
    try:
        call()
    except ValueError as err:
        print("ValueError", type(err).__name__, isinstance(err, UnicodeError), err)
    except TypeError as err:
        print("TypeError", err)
print(issubclass(UnicodeDecodeError, UnicodeError), issubclass(UnicodeError, ValueError))
try:
    b"\xe9".decode("ascii")
except UnicodeDecodeError as err:
    print(type(err).__name__, err)
"""


def test_codecs_encode_decode_as_python() -> None:
    """codecs.encode/decode with the text codecs (now with unicode_escape and
    raw_unicode_escape, which str.encode and bytes.decode take too) and Python's errors,
    a codec's UnicodeError caught as the ValueError it is."""
    assert gradtrace_output(CODECS) == torch_output(CODECS)


IO_OPEN = """from io import open
import io
import torch
print(open, io.open is open, io.open)
print(torch.tensor([1, 2]).sum())
"""


def test_io_open_imports_as_python_builtin() -> None:
    """`from io import open` binds Python's builtin open (the NLP tutorials' header):
    the import and the name print as in Python."""
    assert gradtrace_output(IO_OPEN) == torch_output(IO_OPEN)


def test_io_open_call_is_refused_as_open_is() -> None:
    """Calling the imported open reaches a file: refused with the builtin's message."""
    result = run_text('from io import open\nopen("x.txt", "w")\n')
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert result.error.message.startswith("`open` is not supported")


EMBEDDING_BAG_SPARSE = """import torch
F = torch.nn.functional
torch.manual_seed(0)
for mode in ["sum", "mean"]:
    for pad in [None, 2]:
        w = torch.randn(6, 3, requires_grad=True)
        idx = torch.tensor([1, 2, 4, 2, 2, 5, 1])
        off = torch.tensor([0, 3, 3, 5])
        psw = torch.rand(7) if mode == "sum" else None
        out = F.embedding_bag(idx, w, off, mode=mode, sparse=True, padding_idx=pad,
                              per_sample_weights=psw)
        (out * torch.arange(12.).reshape(4, 3)).sum().backward()
        g = w.grad
        print(mode, pad, g.is_coalesced(), g._indices(), g._values(), g.to_dense())
w = torch.randn(6, 3, requires_grad=True)
out = F.embedding_bag(torch.tensor([[1, 2], [3, 3]]), w, mode="mean", sparse=True)
out.sum().backward(); print(w.grad)
w = torch.randn(6, 3, requires_grad=True)
out = F.embedding_bag(torch.tensor([1, 2, 3, 4]), w, torch.tensor([0, 1, 3]), mode="sum",
                      sparse=True, include_last_offset=True)
try:
    out.sum().backward()
except IndexError as e: print(e)
try:
    F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode="max", sparse=True)
except Exception as e: print(type(e).__name__, e)
try:
    out = F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), scale_grad_by_freq=True,
                          sparse=True)
    out.sum().backward()
except Exception as e: print(type(e).__name__, e)
m = torch.nn.EmbeddingBag(5, 2, sparse=True)
opt = torch.optim.SGD(m.parameters(), lr=0.5)
m(torch.tensor([0, 1, 1, 3]), torch.tensor([0, 2])).sum().backward()
print(m.weight.grad); opt.step(); print(m.weight)
"""


def test_embedding_bag_sparse_gradient_as_torch() -> None:
    """embedding_bag(sparse=True)'s weight gradient is torch's uncoalesced sparse COO
    tensor of one entry per index (padding rows left out), each its bag's gradient row
    times the reciprocal of the bag's size ('mean') or its per-sample weight ('sum');
    include_last_offset's trailing indices raise index_select's IndexError; SGD steps on
    it as on a dense one."""
    assert gradtrace_output(EMBEDDING_BAG_SPARSE) == torch_output(EMBEDDING_BAG_SPARSE)


TRANSFORMER_MIXED_MASKS = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                       dim_feedforward=16, dropout=0.0)
src, tgt = torch.randn(5, 2, 8), torch.randn(4, 2, 8)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
src_mask = torch.zeros(5, 5).type(torch.bool)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
out = model(src, tgt, src_mask, tgt_mask, None, pad, None, pad)
print(out[:, 1])
mha = nn.MultiheadAttention(8, 2)
o, w = mha(src, src, src, key_padding_mask=pad, attn_mask=torch.zeros(5, 5))
print(w[1])
"""


def test_transformer_takes_mismatched_mask_types_as_torch() -> None:
    """A bool key_padding_mask beside a float attn_mask is deprecated (torch warns), not
    an error: the masks are canonicalised to float and the outputs are torch's."""
    assert gradtrace_output(TRANSFORMER_MIXED_MASKS) == torch_output(TRANSFORMER_MIXED_MASKS)


LITERAL_EVAL = """from ast import literal_eval
import ast
import torch
for s in ["3e-3", "(0.9,0.99)", "[1, 'a', {'k': (None, True)}]", "{1, 2}", "b'xy'", "-5",
          "hello", "1 +", "x.y", "{**a}", "0x1f", "'\\u00e9'", "frozenset()", "2 - 3"]:
    try:
        v = literal_eval(s)
        print(repr(v), type(v).__name__)
    except ValueError as e:
        print("ValueError", str(e).split(" at 0x")[0])
    except SyntaxError as e:
        print("SyntaxError", e.msg)
for bad in [3, torch.tensor([1.0]), None]:
    try:
        ast.literal_eval(bad)
    except ValueError as e:
        print("ValueError", e)
"""


def test_ast_literal_eval_as_python() -> None:
    """ast.literal_eval: Python's literals, its ValueError for names and calls and its
    SyntaxError (a kind `except SyntaxError:` catches) for text that does not parse."""
    assert gradtrace_output(LITERAL_EVAL) == torch_output(LITERAL_EVAL)


def test_ast_literal_eval_refuses_complex() -> None:
    """A complex literal has no value in gradtrace's scripts: refused, not made."""
    result = run_text('import ast\nprint(ast.literal_eval("[1, 2j]"))\n')
    assert result.error is not None and result.error.kind == "NotSupportedError"


SYNTAX_ERROR_FIELDS = """import ast
try:
    ast.literal_eval("1 +")
except SyntaxError as e:
    print(repr(e), str(e), e.msg, e.lineno, e.offset, repr(e.text), e.filename, e.args)
try:
    ast.literal_eval("(1,\\n 2")
except Exception as e:
    print(type(e).__name__, e, e.lineno, e.end_lineno, e.end_offset)
"""


def test_literal_eval_syntax_error_fields_as_python() -> None:
    """The SyntaxError literal_eval raises has Python's str, repr, args and fields."""
    assert gradtrace_output(SYNTAX_ERROR_FIELDS) == torch_output(SYNTAX_ERROR_FIELDS)
