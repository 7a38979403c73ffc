"""Differential tests against live PyTorch for the layers and products of issue 12's
`layers` part (baddbmm/addbmm/addmv/addr, embedding_bag, instance/local-response/RMS norms,
unpooling, power-average pooling): values, gradients, node names, next_functions, saved
values and errors (check_case of test_ops_torch_diff), and second-order graphs.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
from test_ops_torch_diff import (  # noqa: E402
    check_case,
)
from test_ops_torch_diff import (
    test_create_graph_records_torchs_nodes as second_order_graphs_match,
)

PRODUCTS = [
    "torch.baddbmm(torch.zeros(4, 2, 5), B, C)", "torch.baddbmm(x[:, :1].t()[0], B, C)",
    "torch.baddbmm(C[0, 0], B, C, beta=0.5, alpha=2)", "B.baddbmm(B, C.transpose(1, 2)[:, :3, :3])",
    "torch.baddbmm(C[0, 0] * float('nan'), B, C, beta=0)",
    "torch.baddbmm(C[0, 0], B, C[:3])", "torch.baddbmm(C[0, 0], B[0], C)",
    "torch.baddbmm(C[0, 0], B, C[0])", "torch.baddbmm(C[0, :2], B, C)",
    "torch.baddbmm(C[0, 0].to(torch.float64), B, C)",
    "y2 = torch.zeros(4, 2, 5)\nout = y2.baddbmm_(B, C, alpha=0.5)",
    "torch.addbmm(C[0, :2], B, C)", "torch.addbmm(C[0, 0], B, C, beta=2, alpha=-1)",
    "B[0].addbmm(B, C.transpose(1, 2)[:, :3, :3], beta=0)", "torch.addbmm(C[0, 0], B, C[:2])",
    "torch.addbmm(C[0, 0], B, B)", "torch.addbmm(x, B, C)",
    "y2 = C[0, :2] * 1\nout = y2.addbmm_(B, C)",
    "torch.addmv(v[:2], x, v)", "torch.addmv(v[:1], x, v, beta=0.5, alpha=3)",
    "torch.addmv(v[:2], M.t(), v, beta=0)", "x[0, :2].addmv(x, u)", "torch.addmv(v, x, v)",
    "torch.addmv(v[:2], x, v.to(torch.float64))", "torch.addmv(v[:2], x, M)",
    "y2 = v[:2] * 1\nout = torch.addmv_(y2, x, v)", "y2 = v[:2] * 1\nout = y2.addmv_(M.t(), u)",
    "torch.addr(x, v[:2], u)", "torch.addr(v, v[:2], u, beta=2, alpha=0.5)",
    "torch.addr(x * float('inf'), v[:2], u, beta=0)", "x.addr(v[:2], u)",
    "torch.addr(x, v, u)", "torch.addr(x, x, u)", "torch.addr(x64, v[:2], u)",
    "y2 = x * 1\nout = y2.addr_(v[:2], u, alpha=2)",
]

SECOND = [
    "torch.baddbmm(C[0, 0], B, C, beta=0.5, alpha=2) ** 2",
    "torch.addbmm(C[0, :2], B, C, alpha=2) ** 2",
    "torch.addmv(v[:2], x, v, beta=2) ** 2", "torch.addr(x, v[:2], u) ** 2",
]


@pytest.mark.parametrize("code", PRODUCTS)
def test_products_match_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", SECOND)
def test_second_order_graphs_match_torch(code: str) -> None:
    second_order_graphs_match(code)


BAGS = [
    "F.embedding_bag(ids, emb)", "F.embedding_bag(ids, emb, mode='sum')",
    "F.embedding_bag(ids, emb, mode='max')",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 3, 3]), mode='mean')",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 3, 3]), mode='max')",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 3, 3]), mode='sum', "
    "include_last_offset=True).detach()",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 3, 8]), mode='sum', "
    "include_last_offset=True)",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 5]), padding_idx=int(ids[0, 0]))",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 5]), mode='sum', "
    "padding_idx=int(ids[0, 1]))",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 5]), mode='max', padding_idx=-1)",
    "F.embedding_bag(ids, emb, mode='sum', per_sample_weights=p[:, :2].reshape(2, 3)[:, :2]"
    ".repeat(1, 2))",
    "F.embedding_bag(ids, emb, scale_grad_by_freq=True)",
    "F.embedding_bag(ids, emb, mode='sum', scale_grad_by_freq=True)",
    "F.embedding_bag(ids, emb.to(torch.float64), mode='sum')",
    "torch.embedding_bag(emb, ids.flatten(), torch.tensor([0, 4]), False, 1)",
    "F.embedding_bag(ids, emb, torch.tensor([0, 4]))", "F.embedding_bag(ids.flatten(), emb)",
    "F.embedding_bag(ids, emb, mode='min')", "F.embedding_bag(ids, emb, padding_idx=10)",
    "F.embedding_bag(ids, emb, mode='max', per_sample_weights=x[:, :2].repeat(1, 2))",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([1, 4]))",
    "F.embedding_bag(ids.flatten(), emb, torch.tensor([0, 9]))",
    "F.embedding_bag(ids, emb, per_sample_weights=v)",
]


@pytest.mark.parametrize("code", BAGS)
def test_embedding_bag_matches_torch(code: str) -> None:
    check_case(code)


NORMS = [
    "F.instance_norm(seq)", "F.instance_norm(img, weight=g3, bias=rm)",
    "F.instance_norm(seq, rm * 1, rv * 1, g3, rm, use_input_stats=True, momentum=0.2)",
    "F.instance_norm(seq, rm, rv, use_input_stats=False)",
    "torch.instance_norm(seq, g3, rm, None, None, True, 0.1, 1e-5, False)",
    "F.instance_norm(seq[:, :, :1])", "F.instance_norm(seq, use_input_stats=False)",
    "F.local_response_norm(seq, 2)", "F.local_response_norm(img, 3, alpha=0.1, beta=0.5, k=2.0)",
    "F.local_response_norm(img.unsqueeze(2), 2)", "F.local_response_norm(x, 2)",
    "F.rms_norm(seq, [7])", "F.rms_norm(seq, (3, 7), seq[0])", "F.rms_norm(x, [3], w, eps=1e-3)",
    "torch.rms_norm(img, [5, 5])", "F.rms_norm(x64, [3])", "F.rms_norm(x, [2])",
    "F.rms_norm(x, [3], v[:2])",
]

POOLS = [
    "F.avg_pool3d(img.unsqueeze(0), 2)", "F.avg_pool3d(img, (2, 3, 2), stride=1, padding=1)",
    "F.avg_pool3d(img, 2, ceil_mode=True, count_include_pad=False)",
    "F.avg_pool3d(img, 3, stride=2, padding=1, divisor_override=5)", "F.avg_pool3d(x, 2)",
    "F.avg_pool3d(img, 2, padding=2)",
    "F.max_unpool1d(*F.max_pool1d(seq, 2, return_indices=True), 2)",
    "F.max_unpool1d(*F.max_pool1d(seq, 2, return_indices=True), 2, output_size=[7])",
    "F.max_unpool1d(*F.max_pool1d(seq, 2, return_indices=True), 2, output_size=[9])",
    "F.max_unpool2d(*F.max_pool2d(img[:, :, :4, :4], 2, return_indices=True), 2)",
    "F.max_unpool2d(img[:, :, :2, :2], idx.expand(2, 3, 2, 2) * 9, 2)",
    "F.max_unpool2d(*F.max_pool2d(img, 2, return_indices=True), 2, output_size=(2, 3, 5, 5))",
    "F.max_unpool2d(*F.max_pool2d(img, 3, stride=2, padding=1, return_indices=True), 3, 2, 1)",
    "F.max_unpool2d(img[:, :, :2, :2], idx.unsqueeze(0).unsqueeze(0), 2)",
    "F.lp_pool1d(seq, 2, 3, stride=2)", "F.lp_pool1d(seq.abs(), 1.5, 2)",
    "F.lp_pool2d(img, 2, (2, 3), ceil_mode=True)", "F.lp_pool3d(img.unsqueeze(0), 3, 2)",
]


@pytest.mark.parametrize("code", NORMS)
def test_norms_match_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", POOLS)
def test_pools_match_torch(code: str) -> None:
    check_case(code)


SHUFFLES = [
    "F.channel_shuffle(img[:, :2].repeat(1, 3, 1, 1), 3)", "F.channel_shuffle(seq, 3)",
    "torch.channel_shuffle(seq, 1)", "F.channel_shuffle(seq, 2)", "F.channel_shuffle(x, 1)",
    "F.channel_shuffle(seq, 0)",
]


@pytest.mark.parametrize("code", SHUFFLES)
def test_channel_shuffle_matches_torch(code: str) -> None:
    check_case(code)
