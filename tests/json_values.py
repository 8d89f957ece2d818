"""Any JSON value, for the property tests of the lab's readers of JSON files (a memo, a record, a results
file): nested lists and objects of null, booleans, numbers and short strings."""

from __future__ import annotations

from hypothesis import strategies as st


def json_values(*, width: int = 4, leaves: int = 20, nan: bool = True) -> st.SearchStrategy:
    """JSON values of at most ``leaves`` scalars, lists and objects of at most ``width`` items; ``nan``:
    floats may be NaN or infinite (Python's json writes them)."""
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=nan) | st.text(max_size=8)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=width) | st.dictionaries(st.text(max_size=8), inner, max_size=width)
        ),
        max_leaves=leaves,
    )
