"""Which titles name a date (semantic.date_shape, semantic.date_like): the cosine calibration does not
ask such titles, since a daily note's title names a day, not its topic (tests/test_semantic.py has the
calibration itself)."""
from memory_plugin.semantic.vectors import date_like, date_shape


def test_date_shape_folds_only_digit_runs_and_month_names():
    assert date_shape("2023-08-01") == "0-0-0"
    assert date_shape("Sep 14th, 2020") == "M 0th, 0" and date_shape("Oct 1st, 2020") == "M 0st, 0"
    assert date_shape("Sept 3") == date_shape("december 25") == "M 0"
    assert date_shape("Context") == date_shape("context") == "context"
    assert date_shape("Python") == "python" and date_shape("Run A Basic PostgreSQL Server") == "run a basic postgresql server"
    assert date_shape("Marching orders") == "marching orders"  # whole words only
    assert date_shape("") == ""


def test_date_like_needs_a_month_and_a_number_or_three_numbers():
    for t in ("2023-08-01", "Sep 14th, 2020", "Oct 1st, 2020", "Sept 3", "2023-08-01 standup", "December 25",
              "1.2.3 release notes"):  # the last: a known false positive of the rule
        assert date_like(t), t
    for t in ("Python 3", "v2.1", "2023", "Context", "May the force", "Chapter 1 part 2", "Topic number 7",
              "Marching 1 2", "", "March"):
        assert not date_like(t), t
