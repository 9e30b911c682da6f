"""Comparing a client DataFrame with rows computed by SQL on the warehouse.

A grid is compared as a mapping from its attribute values (as text, the way the client returns
them) to its metric values (numbers, compared to a cent's precision relative to their size).
Row order is not compared: it is not part of what the API promises.
"""

import math


def keyed(rows, key_width):
    """{(attribute values as text): (metric values)} from SQL rows or DataFrame rows."""
    table = {}
    for row in rows:
        key = tuple(str(value) for value in row[:key_width])
        assert key not in table, f"two rows for {key}"
        table[key] = tuple(row[key_width:])
    return table


def frame_rows(frame, columns):
    return [tuple(values) for values in frame[columns].itertuples(index=False, name=None)]


def _close(actual, expected):
    if expected is None:
        return actual is None or (isinstance(actual, float) and math.isnan(actual))
    return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=0.005)


def assert_grid(frame, attribute_columns, metric_columns, expected_rows):
    """The frame's rows, keyed by `attribute_columns`, equal `expected_rows` (SQL rows whose
    first values are the attributes' and whose others are the metrics', in the same order).
    Columns of the frame not named are not compared."""
    assert_same_rows(frame_rows(frame, attribute_columns + metric_columns), expected_rows,
                     len(attribute_columns))


def assert_same_rows(actual_rows, expected_rows, key_width):
    """Rows whose first `key_width` values are attribute values and whose others are metric
    values hold the same keys and, for each key, the same metric values."""
    actual = keyed(actual_rows, key_width)
    expected = keyed(expected_rows, key_width)
    missing = sorted(set(expected) - set(actual))[:5]
    extra = sorted(set(actual) - set(expected))[:5]
    assert not missing and not extra, f"rows missing {missing}, rows not expected {extra}"
    wrong = [(key, actual[key], expected[key]) for key in sorted(expected)
             if len(actual[key]) != len(expected[key])
             or not all(_close(a, e) for a, e in zip(actual[key], expected[key]))]
    assert not wrong, f"{len(wrong)} rows differ, e.g. (key, got, expected): {wrong[:3]}"
