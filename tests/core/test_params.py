from __future__ import annotations

import pytest

from homeclaw_cli.core.manifest import Capability, Parameter
from homeclaw_cli.core.params import ParameterError, validate_parameters
from homeclaw_cli.errors import ExitCode, UsageError


def cap(*params: Parameter) -> Capability:
    return Capability(id="do", name="Do", description="Do it.", parameters=list(params))


def test_text_values_are_coerced_to_declared_types() -> None:
    capability = cap(
        Parameter(name="n", type="number"),
        Parameter(name="f", type="number"),
        Parameter(name="b", type="boolean"),
        Parameter(name="o", type="object"),
        Parameter(name="a", type="array"),
        Parameter(name="s", type="string"),
    )
    values = {"n": "3", "f": " 2.5 ", "b": "true", "o": '{"k": 1}', "a": "[1, 2]", "s": 42}
    assert validate_parameters("p", capability, values) == {
        "n": 3,
        "f": 2.5,
        "b": True,
        "o": {"k": 1},
        "a": [1, 2],
        "s": "42",
    }


@pytest.mark.parametrize("raw", ["false", "no", "0", "off", "FALSE"])
def test_boolean_false_spellings(raw: str) -> None:
    assert validate_parameters("p", cap(Parameter(name="b", type="boolean")), {"b": raw}) == {
        "b": False
    }


@pytest.mark.parametrize(
    ("param", "value", "fragment"),
    [
        (Parameter(name="n", type="number"), "abc", "parameter `n` must be a number, got 'abc'"),
        (Parameter(name="n", type="number"), True, "parameter `n` must be a number"),
        (Parameter(name="n", type="number"), "nan", "finite number"),
        (Parameter(name="b", type="boolean"), "maybe", "must be a boolean (true or false)"),
        (Parameter(name="o", type="object"), "[1]", "must be a JSON object"),
        (Parameter(name="a", type="array"), "{", "must be a JSON array"),
        (Parameter(name="s", type="string"), {"x": 1}, "must be a string, got object"),
    ],
)
def test_values_that_cannot_be_coerced_are_refused_naming_the_parameter(
    param: Parameter, value: object, fragment: str
) -> None:
    with pytest.raises(ParameterError) as info:
        validate_parameters("plug", cap(param), {param.name: value})
    assert fragment in info.value.message
    assert info.value.message.startswith("plug/do: ")


def test_missing_required_and_unknown_are_all_reported_with_did_you_mean() -> None:
    capability = cap(
        Parameter(name="city", type="string", description="City name"),
        Parameter(name="days", type="number"),
    )
    with pytest.raises(ParameterError) as info:
        validate_parameters("weather", capability, {"cty": "Paris"})
    error = info.value
    assert isinstance(error, UsageError)
    assert error.exit_code == ExitCode.USAGE
    assert error.problems == [
        "unknown parameter `cty` (did you mean `city`?) (valid: city, days)",
        "missing required parameter `city` (string) (City name)",
        "missing required parameter `days` (number)",
    ]


def test_a_required_value_of_the_wrong_type_is_one_problem_not_also_missing() -> None:
    capability = cap(Parameter(name="value", type="number"), Parameter(name="unit", type="string"))
    with pytest.raises(ParameterError) as info:
        validate_parameters("units", capability, {"value": "five", "unit": "km"})
    assert info.value.problems == ["parameter `value` must be a number, got 'five'"]


def test_defaults_are_filled_and_optional_parameters_may_be_absent_or_null() -> None:
    capability = cap(
        Parameter(name="unit", type="string", required=False, default="metric"),
        Parameter(name="limit", type="number", required=False),
        Parameter(name="q", type="string"),
    )
    assert validate_parameters("p", capability, {"q": "x", "limit": None}) == {
        "q": "x",
        "unit": "metric",
    }
