"""`random.Random(seed)` and the generator state: a script's own Mersenne Twister draws
CPython's numbers, copies keep the state, getstate/setstate replay, and the instance offers
its sampling methods only. Each snippet also runs under the CPython running the tests."""
from __future__ import annotations

from test_python_gaps import same_as_python

from gradtrace.runner import run_text


def test_a_seeded_random_instance_draws_cpythons_numbers():
    same_as_python("""\
        import random
        rng = random.Random(42)
        print(rng.random(), rng.randint(1, 10), rng.choice("abc"), rng.gauss(0, 1))
        items = list(range(10))
        rng.shuffle(items)
        print(items, rng.sample(range(100), 5), rng.choices([1, 2, 3], k=4))
        print(random.Random("seed").uniform(0, 1), random.Random(2.5).getrandbits(40))
    """)


def test_an_instance_does_not_move_the_module_generator():
    out = same_as_python("""\
        import random
        random.seed(0)
        first = random.random()
        random.seed(0)
        random.Random(0).random()
        print(first == random.random())
    """)
    assert out == "True\n"


def test_getstate_and_setstate_replay_the_draws_of_module_and_instance():
    out = same_as_python("""\
        import random
        rng = random.Random(7)
        state = rng.getstate()
        a = [rng.random() for _ in range(3)]
        rng.setstate(state)
        random.seed(1)
        saved = random.getstate()
        b = random.random()
        random.setstate(saved)
        print(a == [rng.random() for _ in range(3)], b == random.random())
    """)
    assert out == "True True\n"


def test_copies_of_an_instance_continue_from_its_state_on_their_own():
    same_as_python("""\
        import copy
        import random
        rng = random.Random(5)
        a, b = copy.deepcopy(rng), copy.copy(rng)
        print(a.random() == b.random() == rng.random(), a.choices(range(9), k=3))
        d = copy.deepcopy({"r": rng, "again": rng})
        print(d["r"] is d["again"], d["r"] is rng)
    """)


def test_unsupported_seed_and_unknown_attribute_are_pythons_errors():
    same_as_python("""\
        import random
        try:
            random.Random([1])
        except TypeError as e:
            print(e)
        rng = random.Random(0)
        try:
            rng.nope
        except AttributeError as e:
            print(e)
        print(type(rng).__name__)
    """)


def test_an_instance_refuses_pythons_internals():
    result = run_text("import random\nrng = random.Random(0)\nprint(rng.random.__self__)\n")
    assert result.error is not None and result.error.kind == "NotSupportedError"
