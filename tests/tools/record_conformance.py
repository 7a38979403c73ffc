"""Record real torch output for conformance-style cases.

Run under a Python that has torch 2.13 (not the project venv):

    python tests/tools/record_conformance.py tests/conformance_extra/CASE.gt [CASE.gt ...]
    python tests/tools/record_conformance.py tests/conformance_extra   # every case in it
    python tests/tools/record_conformance.py --capability avx2 --runs 2 \\
        --manifest tests/conformance_realworld/MANIFEST.json tests/conformance_realworld

For each `NAME.gt` it writes `NAME.out` (stdout with memory addresses written `0x?`, the
normalisation of ../shared/conformance/check.py) and, when the script ends with an uncaught
exception, `NAME.err` with that exception (its whole message); a stale `.err` is removed
otherwise.

`--capability` runs torch with `ATEN_CPU_CAPABILITY` set to it (torch's float32 results
depend on the vector kernels it picks; it can be forced down, never up); below avx512 it
also caps oneDNN (GELU, convolutions) at AVX2 with `ONEDNN_MAX_CPU_ISA`, since oneDNN reads
the CPU, not torch's setting, and switches numpy's AVX-512 loops off (`NPY_DISABLE_CPU_FEATURES`,
for the script's own numpy arrays): a recording then says the same on an AVX-512 machine as on
an AVX2 one. `--runs N` runs
every case N times and refuses to record one whose output differs between runs.
`--manifest PATH` writes a JSON list of the recorded cases (entries of cases not named
keep theirs): the source each cites in its
header, the capability, torch version and intra-op thread count, the vendor of the CPU it
was recorded on (kept from the previous manifest for cases not recorded in this run), and
the features it uses.
`--name-by-capability` writes `NAME.<capability>.out`/`.err` instead, so one case can hold
recordings made under several capabilities (tests/conformance_numbers). `--manifest-only`
rewrites the manifest from the existing recordings without running anything.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

from gradtrace import _numpy_avx512_features

ADDR = re.compile(r"0x[0-9a-fA-F]+")

# (feature, pattern): what a case uses, found in its code (comments and strings stripped)
FEATURES: list[tuple[str, str]] = [
    ("class", r"^\s*class\s+\w+"),
    ("nn.Module subclass", r"class\s+\w+\((?:torch\.)?nn\.Module\)|class\s+\w+\(nn_Module\)"),
    ("autograd.Function", r"class\s+\w+\((?:torch\.)?(?:autograd\.)?Function\)"),
    ("torch.Tensor subclass", r"class\s+\w+\((?:torch\.)?Tensor\)"),
    ("nn layers", r"\bnn\.[A-Z]\w*\("),
    ("nn.Parameter", r"\bnn\.Parameter\("),
    ("nn.functional", r"\bF\.\w+\(|torch\.nn\.functional\.\w+\("),
    ("optim", r"\boptim\.\w+\(|torch\.optim\.\w+\("),
    ("lr_scheduler", r"lr_scheduler"),
    ("DataLoader", r"\bDataLoader\("),
    ("TensorDataset", r"\bTensorDataset\("),
    ("generator (yield)", r"^\s*yield\b|\byield\s"),
    ("decorator", r"^\s*@"),
    ("lambda", r"\blambda\b"),
    ("*args/**kwargs", r"def\s+\w+\([^)]*\*"),
    ("f-string", r"\bf['\"]"),
    ("try/except", r"^\s*try\s*:"),
    ("grad-mode context",
     r"with\s+torch\.(?:no_grad|enable_grad|set_grad_enabled|inference_mode)"),
    ("random numbers", r"torch\.(?:randn|rand|randint|normal|randperm|multinomial)\("
                       r"|\.normal_\(|\.random_\(|\.uniform_\("),
    ("torch.manual_seed", r"torch\.manual_seed\("),
    ("torch.Generator", r"torch\.Generator\("),
    ("tensor hooks", r"\.register_hook\("),
    ("module hooks", r"register_(?:forward|forward_pre|full_backward|backward)_hook\("),
    ("autograd.grad", r"autograd\.grad\(|\bgrad\(\w+"),
    ("create_graph", r"create_graph\s*=\s*True"),
    ("retain_graph", r"retain_graph\s*=\s*True"),
    ("autograd.functional", r"autograd\.functional|from torch\.autograd\.functional import"),
    ("gradcheck", r"gradcheck\("),
    ("detect_anomaly", r"detect_anomaly"),
    ("Variable", r"\bVariable\("),
    ("torch.Tensor()/FloatTensor()/LongTensor()", r"torch\.(?:Tensor|FloatTensor|LongTensor)\("),
    (".data", r"(?<!utils)\.data\b(?!\.\w*(?:Loader|Dataset))"),
    ("in-place ops", r"\.[a-z]\w*[a-z]_\(|[-+*/]=\s"),
    ("print(model)", r"print\((?:\w+\.)?(?:net|model|module|tinymodel|my_nn)\w*\)"),
    ("state_dict", r"state_dict\("),
    ("import math", r"^\s*import math\b|^\s*from math import"),
    ("import random", r"^\s*import random\b"),
    ("import collections", r"^\s*from collections import"),
    ("torch.device", r"torch\.device\("),
    ("torch.cuda", r"torch\.cuda\."),
]


def header_field(text: str, name: str) -> str:
    """The value of a `# Name: ...` header line, with its indented continuation lines."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"# {name}:"):
            value = [line.split(":", 1)[1].strip()]
            for more in lines[i + 1:]:
                if not more.startswith("#   "):
                    break
                value.append(more[4:].strip())
            return " ".join(value)
    return ""


def features(text: str) -> list[str]:
    code = "\n".join(ln.split("#", 1)[0] if not ln.lstrip().startswith("#") else ""
                     for ln in text.splitlines())
    return [name for name, pattern in FEATURES if re.search(pattern, code, re.MULTILINE)]


def torch_environment(capability: str | None) -> dict[str, str]:
    """This process's environment, with torch run as on a machine of `capability`."""
    env = dict(os.environ)
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
        if capability != "avx512":  # oneDNN picks its ISA from the CPU, not from torch
            env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
            # and numpy too (a script's own numpy arrays): its AVX-512 loops off, as on an
            # AVX2 machine and as gradtrace imports numpy (gradtrace/__init__.py)
            env["NPY_DISABLE_CPU_FEATURES"] = _numpy_avx512_features()
    return env


def run(case: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The case under torch, in an empty folder (what a torch.save writes is thrown away)."""
    with tempfile.TemporaryDirectory() as folder:
        return subprocess.run([sys.executable, str(case.resolve())], cwd=folder,
                              capture_output=True, text=True, timeout=300, env=env)


# The recordings were made on AMD CPUs, where torch's statically linked MKL runs its generic
# kernels. On an Intel CPU MKL runs its own AVX2 or AVX-512 kernels, in torch and in
# gradtrace alike (gradtrace calls the same MKL build), and their float32 bits differ in the
# last place for some values (tanh: ~1%, benchmarks/README.md round 9): there a case that
# differs from its recording is compared with torch 2.13 run on this machine (`torch_here`).
# A real-world case's manifest entry names the vendor of the CPU it was recorded on
# (`cpu_vendor`); the other corpora, and entries without one, were recorded on AMD CPUs.
def as_recorded(stdout: str) -> str:
    """gradtrace's stdout as the recording reads torch's: in text mode, whose universal
    newlines end a line at a carriage return too (a progress bar's `\r`)."""
    return stdout.replace("\r\n", "\n").replace("\r", "\n")


RECORDED_CPU_VENDOR = "AuthenticAMD"


def cpu_vendor() -> str:
    from gradtrace.engine import capability

    return capability._cpuinfo("vendor_id")


def other_mkl_kernels(recorded_vendor: str = RECORDED_CPU_VENDOR) -> bool:
    """Whether this CPU runs other MKL kernels than the recording machine did."""
    return cpu_vendor() not in ("", recorded_vendor)


def torch_here(case: pathlib.Path, capability: str) -> tuple[str, str | None] | None:
    """What torch 2.13 prints for the case on this machine, run as its recording was (that
    capability, oneDNN and numpy capped alike): stdout and the uncaught error (None if it
    ran to its end), addresses written `0x?`; None where torch is not installed."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return None
    proc = run(case, torch_environment(capability))
    error = ADDR.sub("0x?", final_exception(proc.stderr)).strip() if proc.returncode \
        else None
    return ADDR.sub("0x?", proc.stdout), error


def final_exception(stderr: str) -> str:
    """The uncaught exception as `Kind: message`: its whole message, which can span lines
    (load_state_dict's `Error(s) in loading state_dict for Net:` then a tab-indented line
    per key, torch.load's weights-only message with its blank line), from the first line
    after the traceback's last frame, not only its last line."""
    lines = stderr.strip().splitlines()
    start = len(lines) - 1
    for i, line in enumerate(lines):
        if line.startswith("  File "):  # a frame, its source line and carets follow
            start = i + 1
            while start < len(lines) and (lines[start].startswith(" ")
                                          or not lines[start].strip()):
                start += 1
    return "\n".join(lines[min(start, len(lines) - 1):]).strip()


def record(case: pathlib.Path, env: dict[str, str], runs: int, tag: str = "") -> bool:
    """Write NAME[.tag].out and NAME[.tag].err; False (and nothing written) if the runs differ
    in stdout, exit code or the uncaught error (an unseeded draw can show in the error alone)."""
    procs = [run(case, env) for _ in range(max(runs, 1))]
    outs = {(ADDR.sub("0x?", p.stdout), p.returncode,
             ADDR.sub("0x?", final_exception(p.stderr)) if p.returncode else "") for p in procs}
    if len(outs) > 1:
        print(f"{case.name}: output differs between runs, not recorded")
        return False
    proc = procs[0]
    suffix = f".{tag}" if tag else ""
    case.with_suffix(f"{suffix}.out").write_text(ADDR.sub("0x?", proc.stdout))
    err = case.with_suffix(f"{suffix}.err")
    if proc.returncode != 0:
        err.write_text(final_exception(proc.stderr) + "\n")
    elif err.exists():
        err.unlink()
    print(f"{case.stem}{suffix}: exit {proc.returncode}")
    return True


def manifest_entry(case: pathlib.Path, capability: str | None, torch_version: str,
                   threads: int, vendor: str) -> dict:
    text = case.read_text()
    source = header_field(text, "Source")
    url = re.search(r"https?://\S+", source)
    return {
        "case": case.stem,
        "source": source,
        "url": url.group(0).rstrip(".,)") if url else "",
        "changes": header_field(text, "Changes"),
        "capability": capability or "native",
        "torch": torch_version,
        "threads": threads,
        "cpu_vendor": vendor,
        "ends_with_error": case.with_suffix(".err").exists(),
        "features": features(text),
        "nn": sorted(set(re.findall(r"\bnn\.([A-Z]\w*)\(", text))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="case files or directories of NAME.gt")
    parser.add_argument("--capability", choices=("default", "avx2", "avx512"),
                        help="run torch with ATEN_CPU_CAPABILITY set to this")
    parser.add_argument("--runs", type=int, default=1,
                        help="run each case this many times; record only stable output")
    parser.add_argument("--manifest", type=pathlib.Path, help="write MANIFEST.json here")
    parser.add_argument("--name-by-capability", action="store_true",
                        help="write NAME.<capability>.out/.err (needs --capability)")
    parser.add_argument("--manifest-only", action="store_true",
                        help="only (re)write --manifest from the existing recordings")
    args = parser.parse_args()
    if args.manifest_only and not args.manifest:
        parser.error("--manifest-only needs --manifest")
    if args.name_by_capability and not args.capability:
        parser.error("--name-by-capability needs --capability")

    cases: list[pathlib.Path] = []
    for arg in args.paths:
        p = pathlib.Path(arg)
        cases += sorted(p.glob("*.gt")) if p.is_dir() else [p]
    env = torch_environment(args.capability)
    tag = args.capability if args.name_by_capability else ""
    unstable = [] if args.manifest_only else \
        [case.name for case in cases if not record(case, env, args.runs, tag)]
    if args.manifest:
        import torch

        previous = {e["case"]: e for e in json.loads(args.manifest.read_text())} \
            if args.manifest.exists() else {}
        recorded_now = set() if args.manifest_only else {case.stem for case in cases}
        entries = [manifest_entry(case, args.capability, torch.__version__,
                                  torch.get_num_threads(),
                                  cpu_vendor() if case.stem in recorded_now else
                                  previous.get(case.stem, {}).get("cpu_vendor",
                                                                  RECORDED_CPU_VENDOR))
                   for case in cases]
        # cases not named in this run keep their entries (recording one case of a corpus
        # does not drop the others)
        named = {case.stem for case in cases}
        entries += [e for stem, e in previous.items() if stem not in named]
        entries.sort(key=lambda e: e["case"])
        args.manifest.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    if unstable:
        sys.exit(f"unstable output, not recorded: {', '.join(unstable)}")


if __name__ == "__main__":
    main()
