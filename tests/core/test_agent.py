"""The turn loop against in-memory fakes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from homeclaw_cli.core.agent import Agent, AgentConfig
from homeclaw_cli.core.ports import LLMReply, LLMToolCall
from homeclaw_cli.core.tool_registry import ToolRegistry
from homeclaw_cli.core.trace import PromptStep
from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins
from tests.fakes.agent_fakes import (
    NOTES,
    WEATHER,
    FakeCaller,
    FakeLLM,
    FakeRetriever,
    FakeSkills,
    Hit,
    PResult,
    call,
    unwrap,
)

MANIFESTS = {"weather": WEATHER, "notes": NOTES}


def make_agent(
    llm: FakeLLM,
    *,
    caller: FakeCaller | None = None,
    skills: FakeSkills | None = None,
    tmp: Path | None = None,
    **config: Any,
) -> tuple[Agent, FakeCaller]:
    caller = caller or FakeCaller(MANIFESTS)
    builtins = ToolRegistry()
    add_builtins(builtins, BuiltinConfig(allowed_dirs=[tmp] if tmp else []))
    retriever = FakeRetriever(
        {"weather": ["weather"], "note": ["notes"]},
        {"greet": [Hit("greet", "skill", descriptor={"name": "greet", "description": "Say hi"})]},
    )
    agent = Agent(
        llm=llm,
        retriever=retriever,
        caller=caller,
        manifests=MANIFESTS.get,
        skills=skills,
        builtins=builtins,
        config=AgentConfig(**config),
    )
    return agent, caller


def run(agent: Agent, message: str, sink: list[str] | None = None) -> Any:
    return asyncio.run(agent.turn(message, on_text=sink.append if sink is not None else None))


def test_retrieval_narrows_the_tools_offered() -> None:
    llm = FakeLLM("It is sunny.")
    agent, _ = make_agent(llm)
    result = run(agent, "what is the weather in Paris")
    tools = [t["function"]["name"] for t in llm.requests[0]["tools"]]
    assert "weather__now" in tools and "weather__summary" in tools
    assert not any(t.startswith("notes__") for t in tools)
    system = llm.requests[0]["messages"][0]["content"]
    assert "- weather: Current weather" in system and "notes:" not in system
    assert result.answer == "It is sunny." and result.ok


def test_plugin_result_goes_to_the_user_directly() -> None:
    llm = FakeLLM(call("weather__now", city="Paris"))
    agent, caller = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "weather in Paris please", sink)
    assert caller.calls == [("weather", "now", {"city": "Paris"})]
    assert result.answer == "weather.now {'city': 'Paris'}"
    assert "".join(sink) == result.answer
    assert len(llm.requests) == 1  # no post-processing call


def test_two_calls_in_one_reply_both_reach_the_user() -> None:
    """ "weather in Paris and a note" answered by one reply with two calls: both plugins run
    and both results are the answer, in the order called, without another model call."""
    two = LLMReply(
        "",
        [
            LLMToolCall("weather__now", {"city": "Paris"}),
            LLMToolCall("notes__add", {"text": "milk"}),
        ],
    )
    llm = FakeLLM(two)
    agent, caller = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "weather in Paris and a note: milk", sink)
    assert caller.calls == [
        ("weather", "now", {"city": "Paris"}),
        ("notes", "add", {"text": "milk"}),
    ]
    assert result.answer == "weather.now {'city': 'Paris'}\n\nnotes.add {'text': 'milk'}"
    assert "".join(sink) == result.answer
    assert len(llm.requests) == 1
    tools = [m for m in agent.exchanges[-1] if m["role"] == "tool"]
    assert len(tools) == 2  # both results stay in the conversation for a follow-up


def two_need_agent(llm: FakeLLM, scores: dict[str, float] | None = None) -> tuple[Agent, Any]:
    retriever = FakeRetriever({"weather": ["weather"], "note": ["notes"]}, scores=scores)
    caller = FakeCaller(MANIFESTS)
    agent = Agent(llm=llm, retriever=retriever, caller=caller, manifests=MANIFESTS.get)
    return agent, caller


def test_a_need_the_calls_left_open_is_asked_on_its_own() -> None:
    """The model calls the weather for "weather in Paris and add a note: buy milk" and stops;
    the second part is asked alone (no history, not the first part), its plugin's result
    joins the answer and both stay in the conversation."""
    llm = FakeLLM(call("weather__now", city="Paris"), call("notes__add", text="buy milk"))
    agent, caller = two_need_agent(llm)
    sink: list[str] = []
    result = asyncio.run(
        agent.turn("weather in Paris and add a note: buy milk", on_text=sink.append)
    )
    assert caller.calls == [
        ("weather", "now", {"city": "Paris"}),
        ("notes", "add", {"text": "buy milk"}),
    ]
    assert result.ok
    assert result.answer == "weather.now {'city': 'Paris'}\n\nnotes.add {'text': 'buy milk'}"
    assert "".join(sink) == result.answer
    alone = llm.requests[1]["messages"]
    assert [m["role"] for m in alone] == ["system", "user"]
    assert alone[1]["content"] == "add a note: buy milk"
    assert [t["function"]["name"] for t in llm.requests[1]["tools"]][:1] == ["notes__add"]
    roles = [m["role"] for m in agent.exchanges[-1]]  # each result after its call
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert "notes__add" in str(agent.exchanges[-1][3]) and "buy milk" in str(agent.exchanges[-1][4])
    assert agent.exchanges[-1][0]["content"] == "weather in Paris and add a note: buy milk"
    assert result.rounds == 2


def test_a_part_answered_without_a_plugin_is_dropped() -> None:
    llm = FakeLLM(call("weather__now", city="Paris"), "Noted, buy milk!")
    agent, _ = two_need_agent(llm)
    result = asyncio.run(agent.turn("weather in Paris and add a note: buy milk"))
    assert result.answer == "weather.now {'city': 'Paris'}"
    assert len(llm.requests) == 2


def test_a_part_retrieval_is_unsure_of_or_a_called_plugin_serves_is_not_asked() -> None:
    weak = FakeLLM(call("weather__now", city="Paris"))
    agent, _ = two_need_agent(weak, scores={"note": 0.3})  # under doubt_below
    assert asyncio.run(agent.turn("weather in Paris and add a note: buy milk")).ok
    assert len(weak.requests) == 1
    served = FakeLLM(call("weather__now", city="Paris"))
    agent, _ = two_need_agent(served)
    assert asyncio.run(agent.turn("weather in Paris and the weather in Rome")).ok
    assert len(served.requests) == 1


def weather_down(plugin: str, capability: str, args: dict[str, Any]) -> PResult:
    """The weather plugin fails; the others echo their call."""
    if plugin == "weather":
        return PResult(False, error="no network")
    return PResult(True, f"{plugin}.{capability} {args}")


def test_after_a_failed_call_the_other_need_is_still_asked() -> None:
    llm = FakeLLM(
        call("weather__now", city="Paris"),
        "The weather service cannot be reached.",
        call("notes__add", text="buy milk"),
    )
    retriever = FakeRetriever({"weather": ["weather"], "note": ["notes"]})
    caller = FakeCaller(MANIFESTS, weather_down)
    agent = Agent(llm=llm, retriever=retriever, caller=caller, manifests=MANIFESTS.get)
    result = asyncio.run(agent.turn("weather in Paris and add a note: buy milk"))
    assert caller.calls[-1] == ("notes", "add", {"text": "buy milk"})
    assert result.answer.endswith("\n\nnotes.add {'text': 'buy milk'}")


def test_each_need_off_leaves_the_turn_as_the_model_ended_it() -> None:
    llm = FakeLLM(call("weather__now", city="Paris"), call("notes__add", text="buy milk"))
    retriever = FakeRetriever({"weather": ["weather"], "note": ["notes"]})
    agent = Agent(
        llm=llm,
        retriever=retriever,
        caller=FakeCaller(MANIFESTS),
        manifests=MANIFESTS.get,
        config=AgentConfig(each_need=False),
    )
    result = asyncio.run(agent.turn("weather in Paris and add a note: buy milk"))
    assert result.answer == "weather.now {'city': 'Paris'}" and len(llm.requests) == 1


def test_post_process_runs_one_more_model_call_with_the_prompt() -> None:
    llm = FakeLLM(call("weather__summary", city="Oslo"), "Cold and snowy, wear a hat!")
    agent, _ = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "weather summary for Oslo", sink)
    assert result.answer == "Cold and snowy, wear a hat!"
    post = llm.requests[1]["messages"]
    assert post[0] == {"role": "system", "content": "Summarise for a child."}
    assert "weather.summary" in post[1]["content"]
    assert "".join(sink).strip() == result.answer
    assert [s.kind for s in result.steps][-1] == "post_process"


def test_a_bad_call_gets_one_correction_naming_the_valid_tools() -> None:
    llm = FakeLLM(call("radar", city="Paris"), call("weather__now", city=3))
    agent, caller = make_agent(llm)
    result = run(agent, "weather in Paris")
    errors = [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "unknown tool `radar`; available tools: weather__now" in errors[0]
    assert caller.calls == [("weather", "now", {"city": "3"})]  # a number for a string: coerced
    assert result.ok


def test_a_second_bad_call_ends_the_turn_with_the_field_named() -> None:
    llm = FakeLLM(call("weather__now"), call("weather__now", days=2), "never asked")
    agent, caller = make_agent(llm)
    result = run(agent, "weather in Paris")
    assert len(llm.requests) == 2 and caller.calls == []
    errors = [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "missing required parameter `city`" in errors[0]
    assert not result.ok and "still wrong after a correction" in (result.error or "")
    assert "unknown parameter `days`" in (result.error or "")


def test_malformed_argument_string_is_an_error_not_a_crash() -> None:
    llm = FakeLLM(LLMReply("", [LLMToolCall("weather__now", "{not json")]), "sorry")
    agent, _ = make_agent(llm)
    result = run(agent, "weather in Paris")
    tool_msgs = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "arguments must be a JSON object" in tool_msgs[0]["content"]
    assert result.answer == "sorry"


def test_plugin_failure_is_reported_and_marks_the_turn_failed() -> None:
    caller = FakeCaller(MANIFESTS, lambda p, c, a: PResult(False, error="service down"))
    llm = FakeLLM(call("weather__now", city="Paris"), "The weather service is down.")
    agent, _ = make_agent(llm, caller=caller)
    result = run(agent, "weather in Paris")
    assert result.answer == "The weather service is down."
    assert not result.ok and "service down" in (result.error or "")


def test_figures_stated_after_a_failed_call_are_not_shown() -> None:
    """The weather plugin could not be reached, and the model describes the weather anyway: no
    one gave those figures, so the answer is left out and the error says what failed. A list's
    numbering and the figures the user gave are not made up."""
    caller = FakeCaller(MANIFESTS, lambda p, c, a: PResult(False, error="service down"))
    sink: list[str] = []
    made_up = "The weather in Paris is cloudy, 5°C, with a chance of rain."
    agent, _ = make_agent(FakeLLM(call("weather__now", city="Paris"), made_up), caller=caller)
    result = run(agent, "weather in Paris", sink)
    assert result.answer == "" and sink == [] and not result.ok
    assert result.error == "plugin weather failed: service down" and result.failure == "tool"
    honest = "Sorry, the weather service for Paris 75001 is down.\n1. Try again later."
    agent, _ = make_agent(FakeLLM(call("weather__now", city="Paris"), honest), caller=caller)
    assert run(agent, "weather in Paris 75001").answer == honest


def test_a_part_whose_plugin_failed_fails_the_turn_after_the_other_answer() -> None:
    llm = FakeLLM(
        call("notes__add", text="buy milk"),
        call("weather__now", city="Paris"),
        "It is 18 degrees and sunny in Paris.",
    )
    retriever = FakeRetriever({"weather": ["weather"], "note": ["notes"]})
    agent = Agent(
        llm=llm,
        retriever=retriever,
        caller=FakeCaller(MANIFESTS, weather_down),
        manifests=MANIFESTS.get,
    )
    result = asyncio.run(agent.turn("add a note: buy milk and the weather in Paris"))
    assert result.answer == "notes.add {'text': 'buy milk'}"
    assert not result.ok and result.error == "plugin weather failed: no network"
    assert result.failure == "tool"


def test_an_answer_dressed_as_tool_output_is_corrected_then_unwrapped() -> None:
    caller = FakeCaller(MANIFESTS, lambda p, c, a: PResult(False, error="service down"))
    fake = '<tool_response>\n<tool_output tool="weather__now">\nERROR: down\n</tool_output>'
    llm = FakeLLM(call("weather__now", city="Paris"), fake, "The weather service is down.")
    agent, _ = make_agent(llm, caller=caller)
    assert run(agent, "weather in Paris").answer == "The weather service is down."
    assert "written as tool output" in llm.requests[2]["messages"][-1]["content"]
    llm = FakeLLM(call("weather__now", city="Paris"), fake, fake)
    agent, _ = make_agent(llm, caller=caller)
    assert run(agent, "weather in Paris").answer == "ERROR: down"  # the tags never shown


def test_a_call_inside_copied_output_tags_leaves_neither_in_the_answer() -> None:
    written = '<tool_output>\n{"name": "jokes", "arguments": {"day": "today"}}\n</tool_output>'
    llm = FakeLLM(call("current_time"), written, written)
    agent, _ = make_agent(llm)
    result = run(agent, "joke of the day, and what time is it")
    assert "tool_output" not in result.answer and "jokes" not in result.answer
    assert result.error == "the model wrote a call to `jokes` instead of an answer"


def test_round_cap() -> None:
    llm = FakeLLM(*[call("current_time") for _ in range(3)])
    agent, _ = make_agent(llm, max_rounds=3)
    result = run(agent, "what time")
    assert not result.ok and "3 rounds" in (result.error or "")


def test_json_in_content_call_is_understood_and_not_streamed() -> None:
    llm = FakeLLM('```json\n{"name": "weather__now", "arguments": {"city": "Rome"}}\n```')
    agent, caller = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "weather in Rome", sink)
    assert caller.calls == [("weather", "now", {"city": "Rome"})]
    assert "".join(sink) == result.answer  # the JSON itself never reached the user


def test_a_name_the_model_plainly_meant_is_mended() -> None:
    # A misspelling and a capability id without its plugin prefix, as small models write them.
    llm = FakeLLM(call("weather__nwo", city="Paris"), call("now", city="Oslo"), "done")
    agent, caller = make_agent(llm)
    result = run(agent, "weather in Paris and Oslo")
    assert caller.calls[0] == ("weather", "now", {"city": "Paris"})
    assert result.ok


def test_a_call_to_an_unknown_tool_is_never_shown_as_the_answer() -> None:
    llm = FakeLLM('```json\n{"name": "factorial", "arguments": {"n": 7}}\n```', "7! = 5040")
    agent, _ = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "7 factorial pls", sink)  # retrieval found nothing: no tool fits
    assert result.answer == "7! = 5040" and "".join(sink) == "7! = 5040" and result.ok
    plain = llm.requests[1]  # asked for the answer itself, without tools
    assert not plain.get("tools") and "yourself" in plain["messages"][0]["content"]
    assert not result.tool_steps()


def test_a_call_to_an_unknown_tool_beside_a_confident_plugin_is_corrected() -> None:
    llm = FakeLLM('```json\n{"name": "forecast", "arguments": {"city": "Oslo"}}\n```', "ok")
    agent, _ = make_agent(llm)
    run(agent, "weather in Oslo")  # retrieval found the weather plugin at 0.9
    error = unwrap(next(m for m in llm.requests[1]["messages"] if m["role"] == "tool")["content"])
    assert error.startswith("ERROR: unknown tool `forecast`; available tools: weather__now")


def test_json_the_user_asked_for_is_kept_as_text() -> None:
    llm = FakeLLM('{"name": "Ada", "age": 3}')
    agent, caller = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "give me JSON", sink)
    assert result.answer == '{"name": "Ada", "age": 3}' and not caller.calls
    assert "".join(sink).strip() == result.answer


def test_model_without_tools_uses_format_schema() -> None:
    llm = FakeLLM('{"tool": "weather__now", "arguments": {"city": "Lima"}}', tools=False)
    agent, caller = make_agent(llm)
    result = run(agent, "weather in Lima")
    request = llm.requests[0]
    assert (
        request["tools"] is None
        and "weather__now" in request["format"]["properties"]["tool"]["enum"]
    )
    assert "## Tools" in request["messages"][0]["content"]
    assert caller.calls == [("weather", "now", {"city": "Lima"})] and result.ok

    llm2 = FakeLLM('{"tool": "answer", "answer": "Hi there"}', tools=False)
    agent2, _ = make_agent(llm2)
    sink: list[str] = []
    assert run(agent2, "hello", sink).answer == "Hi there"
    assert sink == ["Hi ", "there"]  # streamed out of the JSON reply as it arrived


def test_search_plugins_adds_tools_for_the_next_round() -> None:
    llm = FakeLLM(call("search_plugins", query="note"), call("notes__add", text="milk"))
    agent, caller = make_agent(llm)
    result = run(agent, "remember to buy milk")
    assert "notes__add" not in [t["function"]["name"] for t in llm.requests[0]["tools"]]
    assert "notes__add" in [t["function"]["name"] for t in llm.requests[1]["tools"]]
    assert caller.calls == [("notes", "add", {"text": "milk"})] and result.ok


def test_skills_block_and_skill_tools() -> None:
    skills = FakeSkills()
    llm = FakeLLM(
        call("read_skill", skill="greet"),
        call("run_skill", skill_name="greet", script="hello.sh", args=["Bob"]),
        "Done: hello Bob",
    )
    agent, _ = make_agent(llm, skills=skills)
    result = run(agent, "greet Bob")
    system = llm.requests[0]["messages"][0]["content"]
    assert "<available_skills>" in system and "<name>greet</name>" in system
    assert skills.runs == [("greet", "hello.sh", ["Bob"])]
    tool_msgs = [m["content"] for m in llm.requests[2]["messages"] if m["role"] == "tool"]
    assert "Run scripts/hello.sh" in tool_msgs[0] and "hello Bob" in tool_msgs[1]
    assert result.answer == "Done: hello Bob"


def test_plugins_and_skills_are_cut_against_each_other() -> None:
    llm = FakeLLM("ok", "ok")
    agent, _ = make_agent(llm, skills=FakeSkills())
    retriever: Any = agent.retriever
    retriever.skills = {"greet": [Hit("greet", "skill", 0.8, descriptor={"name": "greet"})]}
    retriever.plugins = {"weather": ["weather"]}
    result = run(agent, "greet the weather")  # the skill 0.8, the weather plugin 0.9
    assert "weather__now" in result.tools_offered
    assert "<name>greet</name>" in llm.requests[0]["messages"][0]["content"]
    retriever.skills = {"greet": [Hit("greet", "skill", 0.7, descriptor={"name": "greet"})]}
    result = run(agent, "greet the weather")  # 0.2 under the plugin
    assert result.skill_retrieval.hits == []
    assert "<available_skills>" not in llm.requests[1]["messages"][0]["content"]
    (skill,) = result.skill_retrieval.candidates
    assert skill.reason.endswith("under the plugin weather")


def test_no_skills_block_without_retrieved_skills() -> None:
    llm = FakeLLM("ok")
    agent, _ = make_agent(llm, skills=FakeSkills())
    run(agent, "weather")
    assert "<available_skills>" not in llm.requests[0]["messages"][0]["content"]


def test_follow_up_is_retrieved_with_previous_message_and_history_kept() -> None:
    llm = FakeLLM("Sunny.", "Rainy.")
    agent, _ = make_agent(llm)
    run(agent, "what is the weather like in Paris today?")
    run(agent, "and tomorrow?")
    assert agent.retriever.queries[-1].endswith("and tomorrow?")  # type: ignore[attr-defined]
    assert "weather" in agent.retriever.queries[-1]  # type: ignore[attr-defined]
    roles = [m["role"] for m in llm.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_a_short_request_of_its_own_is_retrieved_alone() -> None:
    """ "save a note: milk" after the weather finds the notes plugin on its own: it is searched
    alone and offered what it found, not the weather the previous turn used."""
    llm = FakeLLM(call("weather__now", city="Paris"), call("notes__add", text="milk"), "Saved.")
    agent, caller = make_agent(llm)
    run(agent, "weather in Paris")
    result = run(agent, "save a note: milk")
    assert agent.retriever.queries[-1] == "save a note: milk"  # type: ignore[attr-defined]
    assert "notes__add" in result.tools_offered and "weather__now" not in result.tools_offered
    assert caller.calls[-1] == ("notes", "add", {"text": "milk"})


def test_a_fragment_or_a_carrying_on_message_stays_a_follow_up() -> None:
    """ "notes?" (one word that means something) and "and a note?" (opens by carrying on) are
    read with the previous request even though alone they find another plugin."""
    for message in ("notes?", "and a note about it?"):
        llm = FakeLLM(call("weather__now", city="Paris"), "Sunny.", "Sure.")
        agent, _ = make_agent(llm)
        run(agent, "weather in Paris")
        result = run(agent, message)
        assert agent.retriever.queries[-1] == f"weather in Paris\n{message}"  # type: ignore[attr-defined]
        assert "weather__now" in result.tools_offered, message


def test_thanks_is_no_follow_up() -> None:
    """ "thanks!" after a plugin turn asks nothing of that plugin: it is retrieved alone and
    the previous turn's plugin is not offered again (a small model called it once more)."""
    llm = FakeLLM(call("weather__now", city="Paris"), "You're welcome!")
    agent, caller = make_agent(llm)
    agent.retriever = _FirstOnly({"weather": ["weather"]}, {})
    run(agent, "weather in Paris")
    thanks = run(agent, "ok, thanks a lot!")
    assert agent.retriever.queries[-1] == "ok, thanks a lot!"  # type: ignore[attr-defined]
    assert "weather__now" not in thanks.tools_offered
    assert thanks.answer == "You're welcome!" and len(caller.calls) == 1


def test_workspace_identity_and_tools_md(tmp_path: Path) -> None:
    (tmp_path / "IDENTITY.md").write_text("You are Claw, a pirate.")
    (tmp_path / "TOOLS.md").write_text("Use weather for weather.")
    llm = FakeLLM("Arr")
    agent, _ = make_agent(llm, workspace_dirs=[tmp_path])
    run(agent, "hi")
    system = llm.requests[0]["messages"][0]["content"]
    assert system.startswith("You are Claw, a pirate.") and "Use weather for weather." in system


def test_read_file_builtin_stays_inside_allowed_dirs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("secret plan")
    llm = FakeLLM(call("read_file", path="a.txt"), call("read_file", path="/etc/passwd"), "ok")
    agent, _ = make_agent(llm, tmp=tmp_path)
    run(agent, "read a.txt")
    tool_msgs = [unwrap(m["content"]) for m in llm.requests[2]["messages"] if m["role"] == "tool"]
    assert tool_msgs[0] == "secret plan"
    assert tool_msgs[1].startswith("ERROR:") and "outside the allowed folders" in tool_msgs[1]


def test_trace_json_has_timings_and_prompt_size() -> None:
    llm = FakeLLM(call("weather__now", city="Paris"))
    agent, _ = make_agent(llm)
    data = run(agent, "weather in Paris").to_json()
    assert {"retrieve", "llm", "tools", "total", "overhead"} <= set(data["timings"])
    assert [s["kind"] for s in data["trace"]] == ["retrieve", "prompt", "llm", "tool"]
    assert data["prompt_tokens"] > 0 and data["retrieved"]["plugins"][0]["id"] == "weather"


def test_history_is_trimmed_to_fit_the_context_window() -> None:
    llm = FakeLLM(*["word " * 500 for _ in range(4)])
    agent, _ = make_agent(llm, context_tokens=1300)
    for i in range(4):
        run(agent, f"question number {i} about nothing in particular today")
    last = llm.requests[-1]["messages"]
    assert len(agent.history) == 8  # all kept in memory ...
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user"]  # ... but trimmed
    prompt = agent.last.steps[1]  # type: ignore[union-attr]
    assert isinstance(prompt, PromptStep)
    assert prompt.history_dropped == 4 and prompt.history_messages == 2


def test_num_ctx_is_sent_to_ollama() -> None:
    from homeclaw_cli.adapters.llm_ollama import OllamaLLM
    from tests.fakes.ollama_server import FakeOllama, text

    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.script(text("ok"))

        async def go() -> None:
            llm = OllamaLLM(fake.host, "llama3.2", num_ctx=8192)
            try:
                await llm.chat([{"role": "user", "content": "x"}])
            finally:
                await llm.aclose()

        asyncio.run(go())
        assert fake.last_chat["options"]["num_ctx"] == 8192


def test_skill_tool_refusal_goes_back_as_error() -> None:
    llm = FakeLLM(call("read_skill", skill="nope"), "no such skill")
    agent, _ = make_agent(llm, skills=FakeSkills())
    result = run(agent, "greet someone")
    tool_msgs = [unwrap(m["content"]) for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_msgs == ["ERROR: no skill 'nope'"] and result.ok


def test_skill_call_tools_only_once_a_skill_is_in_play() -> None:
    llm = FakeLLM(call("search_skills", query="greet"), "ok")
    agent, _ = make_agent(llm, skills=FakeSkills())
    run(agent, "what is the weather")  # no skill retrieved
    first = [t["function"]["name"] for t in llm.requests[0]["tools"]]
    second = [t["function"]["name"] for t in llm.requests[1]["tools"]]
    assert "search_skills" in first and "read_skill" not in first
    assert {"read_skill", "run_skill"} <= set(second)


def test_reasoning_block_is_neither_shown_nor_parsed() -> None:
    llm = FakeLLM("<think>the user wants weather, hmm</think>\nIt is sunny.")
    agent, _ = make_agent(llm)
    sink: list[str] = []
    result = run(agent, "weather in Paris", sink)
    assert result.answer == "It is sunny." and "think" not in "".join(sink)
    assert "".join(sink).strip() == "It is sunny."

    llm2 = FakeLLM('<think>call it</think>{"name": "weather__now", "arguments": {"city": "Oslo"}}')
    agent2, caller = make_agent(llm2)
    run(agent2, "weather in Oslo")
    assert caller.calls == [("weather", "now", {"city": "Oslo"})]


def test_an_empty_answer_is_an_error_that_says_what_was_tried() -> None:
    llm = FakeLLM(call("current_time"), "")
    agent, _ = make_agent(llm)
    result = run(agent, "hi! what time is it?")
    assert not result.ok
    assert result.error == "the model gave an empty answer after calling current_time"
    assert agent.history == []  # nothing to continue from


def test_an_empty_answer_after_a_failed_call_says_what_the_call_said() -> None:
    llm = FakeLLM(call("current_time", timezone="Mars/Olympus_Mons"), "")
    agent, _ = make_agent(llm)
    result = run(agent, "time on mars?")
    assert result.error is not None
    assert result.error.startswith("the model gave an empty answer after calling current_time; ")
    assert "current_time said: " in result.error and "Mars/Olympus_Mons" in result.error


def test_the_error_names_the_last_line_of_a_long_failed_output() -> None:
    skills = FakeSkills()
    failing = call("run_skill", skill_name="greet", script="hello.sh", args=["--fail"])
    agent, _ = make_agent(FakeLLM(failing, ""), skills=skills)
    result = run(agent, "greet Bob")
    assert result.error == (
        "the model gave an empty answer after calling run_skill; run_skill said: error: no Bob"
    )


def test_a_third_identical_call_is_stopped_and_the_model_told_to_answer() -> None:
    same = call("current_time", timezone="Australia/Sydney")
    llm = FakeLLM(same, same, same, "It is noon.")
    agent, _ = make_agent(llm)
    result = run(agent, "what time is it in sydney")
    assert result.ok and result.answer == "It is noon."
    tool_steps = [s for s in result.steps if s.kind == "tool"]
    assert [s.ok for s in tool_steps] == [True, True, False]
    assert "already called 2 times" in tool_steps[2].output


def test_status_events_frame_the_model_and_the_tool_and_clear_before_a_question() -> None:
    from homeclaw_cli.core.approval import ApprovalGate, ApprovalPolicy, ToolAction

    events: list[str | None] = []

    async def ask(action: ToolAction, reason: str) -> Any:
        events.append(f"asked {action.tool}")
        return "yes"

    llm = FakeLLM(call("notes__add", text="milk"), "Noted.")
    agent, caller = make_agent(llm)
    agent.approval = ApprovalGate(ApprovalPolicy(), ask)
    result = asyncio.run(agent.turn("add a note: milk", on_status=events.append))
    assert result.ok and caller.calls == [("notes", "add", {"text": "milk"})]
    assert events == [
        "finding tools",
        None,
        "thinking",
        None,  # the spinner is gone before the user is asked
        "asked notes__add",
        "running notes__add",
        None,
    ]


class _FirstOnly(FakeRetriever):
    """Retrieves for a message on its own, nothing for a follow-up read with the one before."""

    def search_plugins(self, query: str, *, limit: int | None = None) -> Any:
        return super().search_plugins("" if "\n" in query else query, limit=limit)


def test_a_short_follow_up_is_offered_the_plugin_the_last_turn_used() -> None:
    llm = FakeLLM(call("weather__now", city="Paris"), call("weather__now", city="Rome"))
    agent, caller = make_agent(llm)
    agent.retriever = _FirstOnly({"weather": ["weather"]}, {})
    run(agent, "weather in Paris")
    result = run(agent, "and rome?")
    assert "weather__now" in result.tools_offered
    assert caller.calls[-1] == ("weather", "now", {"city": "Rome"})
