"""One message template for bad input."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats import _validation as v


def test_probability_message_template():
    with pytest.raises(ValueError, match=r"^`y_score` must contain probabilities in \[0, 1\]; "
                                         r"got values in \[-0.2, 1.3\]\.$"):
        v.check_probability([0.1, -0.2, 1.3], "y_score")


def test_probability_matrix_rows():
    with pytest.raises(ValueError, match="`probs` must be a probability matrix whose rows sum"):
        v.check_probability_matrix([[0.5, 0.4], [0.5, 0.5]], "probs")
    out = v.check_probability_matrix([[0.5, 0.5], [0.1, 0.9]], "probs")
    assert out.shape == (2, 2)


@pytest.mark.parametrize("bad,exc,msg", [
    ("seed", TypeError, "`rng` must be None, a non-negative int seed or a numpy Generator"),
    (-3, ValueError, "`rng` must be None"),
    (1.5, TypeError, "`rng` must be"),
])
def test_rng_errors(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        v.check_rng(bad)


def test_rng_forms_reproducible():
    a = v.check_rng(5).random(3)
    b = v.check_rng(np.random.default_rng(5)).random(3)
    np.testing.assert_array_equal(a, b)
    g = np.random.default_rng(1)
    assert v.check_rng(g) is g
    assert isinstance(v.check_rng(None), np.random.Generator)


def test_scalar_int_option_messages():
    with pytest.raises(ValueError, match=r"`half_width` must be a finite number > 0; got 0.0"):
        v.check_scalar(0, "half_width", low=0, low_inclusive=False)
    with pytest.raises(TypeError, match="`budget` must be an integer"):
        v.check_int("10", "budget")
    with pytest.raises(ValueError, match=r"`budget` must be an integer >= 1; got 0"):
        v.check_int(0, "budget", low=1)
    assert v.check_int(3.0, "budget") == 3
    with pytest.raises(ValueError, match="`measure` must be one of 'f1', 'precision'"):
        v.check_option("F1", "measure", ("f1", "precision"))
    with pytest.raises(TypeError, match="`confidence_level` must be a number"):
        v.check_confidence_level("0.95")


def test_array_checks():
    with pytest.raises(ValueError, match="`X` must be finite .*2 non-finite values"):
        v.check_array([1.0, np.nan, np.inf], "X")
    with pytest.raises(ValueError, match="`X` must be 2-dimensional"):
        v.check_array([1.0, 2.0], "X", ndim=2)
    with pytest.raises(TypeError, match="`X` must be array-like of numbers"):
        v.check_array(["a", "b"], "X")
    with pytest.raises(ValueError, match=r"`y` must be binary labels coded 0/1; got values "
                                         r"\{0, 1, 2\}"):
        v.check_binary_labels([0, 1, 2], "y")
    np.testing.assert_array_equal(v.check_binary_labels([True, False], "y"), [1, 0])
    with pytest.raises(ValueError, match="`a` and `b` must have the same length; got 2 and 3"):
        v.check_consistent_length(a=[1, 2], b=[1, 2, 3])


def test_rng_alias_decorator():
    import inspect

    from evalstats._validation import check_rng, rng_alias

    @rng_alias
    def draw(n, rng=None, *, scale=1.0):
        return check_rng(rng).normal(size=n) * scale

    assert draw(3, random_state=4).tolist() == draw(3, rng=4).tolist() == draw(3, 4).tolist()
    assert "random_state" in inspect.signature(draw).parameters
    with pytest.raises(TypeError, match=r"draw\(\) got both `rng` and `random_state`"):
        draw(3, rng=1, random_state=1)
    with pytest.raises(TypeError, match="got both"):
        draw(3, 1, random_state=1)

    class Thing:
        @rng_alias
        def __init__(self, *, rng=None):
            self.g = check_rng(rng)

    assert Thing(random_state=2).g.random() == Thing(rng=2).g.random()
    with pytest.raises(TypeError, match="no `rng` parameter"):
        rng_alias(lambda x: x)
