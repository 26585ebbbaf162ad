"""core/user_paths.py: a path the model shortened, completed from the one the user typed."""

from __future__ import annotations

from homeclaw_cli.core.user_paths import complete_paths, user_paths

ASKED = ["how many rows in skills/data-inspect/examples/cities.csv?"]


def test_user_paths_are_the_words_with_a_slash_without_sentence_punctuation() -> None:
    said = [*ASKED, "and in `~/notes/todo.md`, or ./a/b. and/or 5 km"]
    assert user_paths(said) == {
        "skills/data-inspect/examples/cities.csv",
        "~/notes/todo.md",
        "./a/b",
        "and/or",
    }


def test_a_shortened_path_or_file_name_becomes_the_users_path() -> None:
    paths = user_paths(ASKED)
    full = "skills/data-inspect/examples/cities.csv"
    for short in ("examples/cities.csv", "cities.csv", "./examples/cities.csv"):
        assert complete_paths({"args": [short, "--top", "5"]}, paths) == {
            "args": [full, "--top", "5"]
        }
    assert complete_paths({"path": "examples/"}, user_paths(["ls skills/x/examples/"])) == {
        "path": "skills/x/examples/"
    }


def test_values_that_are_no_shortened_user_path_stay() -> None:
    paths = user_paths(ASKED)
    for value in (
        "skills/data-inspect/examples/cities.csv",  # already whole
        "examples",  # a word, not a path
        "ties.csv",  # ends the path, but not at a slash
        "other/cities.csv",  # another folder
        "/data/examples/cities.csv",  # absolute: not a shortened one
        "--cities.csv",
        "rows in cities.csv",
    ):
        assert complete_paths({"file": value}, paths) == {"file": value}


def test_a_value_two_user_paths_end_with_is_ambiguous_and_stays() -> None:
    paths = user_paths(["compare a/cities.csv with b/cities.csv"])
    assert complete_paths({"file": "cities.csv"}, paths) == {"file": "cities.csv"}


def test_kept_arguments_and_calls_without_user_paths_are_left_alone() -> None:
    paths = user_paths(["run skills/disk-usage/scripts/du.py on ~/Downloads"])
    arguments = {"script": "du.py", "args": ["du.py"]}
    completed = complete_paths(arguments, paths, keep={"script"})
    assert completed == {"script": "du.py", "args": ["skills/disk-usage/scripts/du.py"]}
    assert complete_paths({"file": "cities.csv"}, []) == {"file": "cities.csv"}
