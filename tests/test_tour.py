"""The tour (`python -m ember tour`) prints each spec movement example with its right result."""

from ember.tour import run


def test_tour_prints_the_spec_results():
    lines = []
    run(out=lambda *args: lines.append(" ".join(str(a) for a in args)))
    text = "\n".join(lines)
    assert "[[0 3]\n [1 4]\n [2 5]]" in text
    assert "[[-2  0  1  2 -2 -2]\n [-2  3  4  5 -2 -2]]" in text
    assert "(5, 2, 2, 3, 1, 1, 3)" in text
    assert "array([ 9, 10, 11])\narray([12])" in text
    assert "[[1 1]\n [4 3]]" in text
