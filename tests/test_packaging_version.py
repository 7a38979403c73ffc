"""`from packaging import version` (the torch version checks of real code:
`version.parse(torch.__version__) >= version.parse("1.10")`) runs packaging 24.2's
version module as bundled library code: every string, attribute, ordering and error the
installed packaging (pytest's dependency, 26.x here) gives for PEP 440 versions."""
from __future__ import annotations

import contextlib
import io

import pytest

from gradtrace.runner import run_text

VERSIONS = ["2.13.0+cpu", "1.10.0", "1.9.2", "1.10", "1.2", "1.2a1", "1.2.0+local.7",
            "2.0.0rc1", "2.0.0", "1.0.post1", "1.0.dev3", "1!2.0", "1.0", "1.0.0",
            "v1.4", "1.0-1", "1.0_rc2", "1.0.RC2", "1.0alpha3", "1.0b", "1.0c1", "1.0pre2",
            "1.0-post.4", "1.0.dev", "1.0a1.post2.dev3", "0.4.1", "0.4.1b2", "1.0+ubuntu-1",
            "1.0+abc.5.xyz", " 3.1 ", "2.1.0a0+git1234", "1.13.1+cu117", "2024.1"]
INVALID = ["not a version", "1.0+", "1..0", "", "1.0-", "+cpu", "1.0.a.b"]

SCRIPT = """from packaging import version
from packaging.version import InvalidVersion, Version, parse
VERSIONS = {versions!r}
for text in VERSIONS:
    v = parse(text)
    print(repr(v), str(v), v.epoch, v.release, v.pre, v.post, v.dev, v.local, v.public,
          v.base_version, v.is_prerelease, v.is_postrelease, v.is_devrelease, v.major,
          v.minor, v.micro)
parsed = [Version(t) for t in VERSIONS]
print([[int(a < b) + 2 * int(a == b) for b in parsed] for a in parsed])
print(sorted(parsed), len(set(parsed)), Version("1.0") == "1.0", Version("1.0") != 1.0)
for text in {invalid!r}:
    try:
        version.parse(text)
    except InvalidVersion as err:
        print(type(err).__name__, isinstance(err, ValueError), err)
try:
    Version("1.0") < "1.0"
except TypeError as err:
    print("TypeError:", err)
"""


def _python_output(script: str) -> str:
    pytest.importorskip("packaging")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(script, {})  # noqa: S102
    return out.getvalue()


def test_versions_parse_print_and_order_as_the_installed_packaging() -> None:
    script = SCRIPT.format(versions=VERSIONS, invalid=INVALID)
    expected = _python_output(script)
    result = run_text(script, "versions.gt")
    assert result.error is None, result.error
    assert result.stdout == expected


@pytest.mark.parametrize("imports", [
    "from packaging.version import parse",
    "from packaging import version\nparse = version.parse",
    "import packaging.version\nparse = packaging.version.parse",
    "import packaging.version as pv\nparse = pv.parse",
])
def test_each_import_form_reaches_the_module(imports: str) -> None:
    script = f"{imports}\nimport torch\nprint(parse(torch.__version__) >= parse('1.10'))\n"
    result = run_text(script, "versions.gt")
    assert result.error is None, result.error
    assert result.stdout == "True\n"


def test_the_package_alone_has_no_version_attribute_until_imported() -> None:
    result = run_text("import packaging\nprint(packaging.__version__)\npackaging.version\n",
                      "versions.gt")
    assert result.stdout == "24.2\n"
    assert result.error.kind == "AttributeError"
    assert result.error.message == "module 'packaging' has no attribute 'version'"
