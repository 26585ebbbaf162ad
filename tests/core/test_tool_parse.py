"""Tool calls small models write as text."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.tool_parse import parse_content_calls, parse_json_mode_reply, resolve_name

KNOWN = {"weather__now", "notes__add"}
CALL = '{"name": "weather__now", "arguments": {"city": "Paris"}}'

# What small Qwen / Llama models actually emit instead of structured tool_calls.
RECOGNIZED = [
    CALL,
    f"```json\n{CALL}\n```",
    f"```\n{CALL}\n```",
    f"<tool_call>\n{CALL}\n</tool_call>",
    f"<|python_tag|>{CALL}",
    '{"name": "weather__now", "parameters": {"city": "Paris"}}',
    '{"type": "function", "name": "weather__now", "parameters": {"city": "Paris"}}',
    f"[{CALL}]",
    '{"function": {"name": "weather__now", "arguments": "{\\"city\\": \\"Paris\\"}"}}',
    '{"tool": "weather__now", "arguments": {"city": "Paris"}}',
    f"Sure, let me check the weather.\n{CALL}",
]
NOT_CALLS = [
    'Here is the JSON you asked for: {"name": "Ada", "age": 3}',
    "The weather__now tool needs a city.",
    "{not json at all",
    "",
]


@pytest.mark.parametrize("content", RECOGNIZED)
def test_recognized(content: str) -> None:
    calls = parse_content_calls(content, KNOWN)
    assert [(c.name, c.arguments) for c in calls] == [("weather__now", {"city": "Paris"})]


@pytest.mark.parametrize("content", NOT_CALLS)
def test_ordinary_answers_are_not_calls(content: str) -> None:
    assert parse_content_calls(content, KNOWN) == []


def test_json_mode_replies() -> None:
    assert parse_json_mode_reply('{"tool": "answer", "answer": "hi"}', KNOWN) == ("hi", None)
    answer, call = parse_json_mode_reply(
        '{"tool": "notes__add", "arguments": {"text": "x"}}', KNOWN
    )
    assert answer is None and call is not None and call.arguments == {"text": "x"}
    assert parse_json_mode_reply("plain text", KNOWN) == ("plain text", None)


def test_answer_streamer_decodes_the_answer_as_it_arrives() -> None:
    from homeclaw_cli.core.tool_parse import AnswerStreamer

    pieces: list[str] = []
    streamer = AnswerStreamer(pieces.append)
    reply = '{"tool": "answer", "answer": "Line one\\nsays \\"hi\\" \\u00e9t\\u00e9 \\\\o/"}'
    for i in range(0, len(reply), 3):
        streamer(reply[i : i + 3])
    assert "".join(pieces) == 'Line one\nsays "hi" été \\o/'
    assert streamer.emitted and streamer.done
    silent = AnswerStreamer(pieces.append)
    silent('{"tool": "notes__add", "arguments": {"text": "x"}}')
    assert not silent.emitted


def test_text_gate_streams_prose_and_holds_back_json_and_thinking() -> None:
    from homeclaw_cli.core.tool_parse import TextGate

    shown: list[str] = []
    gate = TextGate(shown.append)
    for piece in ["<think>hm", "</think>", "It is ", "sunny."]:
        gate(piece)
    assert shown == ["It is ", "sunny."] and gate.emitted

    held: list[str] = []
    json_gate = TextGate(held.append)
    for piece in ['{"name"', ': "Ada"}']:
        json_gate(piece)
    assert held == [] and not json_gate.emitted and json_gate.buffer == '{"name": "Ada"}'


def test_names_the_model_plainly_meant_are_mended() -> None:
    assert [c.name for c in parse_content_calls('{"name": "now", "arguments": {}}', KNOWN)] == [
        "weather__now"
    ]
    assert resolve_name("weather__nwo", KNOWN) == "weather__now"
    assert resolve_name("factorial", KNOWN) is None


def test_of_two_close_names_the_clearly_closer_one_is_meant() -> None:
    siblings = ["fruits__getfruitbyfamily", "fruits__getfruitbyname", "fruits__getfruitsbygenus"]
    assert resolve_name("fruits__getfruitsbyfamily", siblings) == "fruits__getfruitbyfamily"
    # as close to one as to the other: the model is asked which it meant
    assert (
        resolve_name("fruits__getfruitbynam", ["fruits__getfruitbyname", "fruits__getfruitbynamf"])
        is None
    )


def test_a_made_up_capability_of_a_plugin_offering_one_is_that_one() -> None:
    assert resolve_name("dates__weekday_info", ["dates__find_date", "current_time"]) == (
        "dates__find_date"
    )
    # two capabilities of that plugin offered: which one is the model's to say
    assert resolve_name("dates__weekday_info", ["dates__find_date", "dates__add_days"]) is None
    assert resolve_name("weather__forecast_for", KNOWN) == "weather__now"
    assert resolve_name("clock__now", KNOWN) is None


def test_a_whole_reply_shaped_like_a_call_is_a_call_even_to_an_unknown_tool() -> None:
    # Better one corrective round than raw JSON shown to the user as the answer.
    calls = parse_content_calls('{"name": "factorial", "arguments": {"n": 7}}', KNOWN)
    assert [(c.name, c.arguments) for c in calls] == [("factorial", {"n": 7})]
