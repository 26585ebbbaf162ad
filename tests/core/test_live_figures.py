"""Current figures an answer states that nothing in the chat gave."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.live_figures import current_figures

FACTS = "Today is Sunday 2026-11-29."


@pytest.mark.parametrize(
    ("request_text", "answer"),
    [
        # the 1.5B model's answers (some shortened) with no plugin that fetches such values
        ("how is shell s stock doing today", "Shell S stock is currently trading at $10."),
        ("what is the price of starbuck's stock", "The current price of Starbucks stock is $110."),
        ("what is the dollar and euro exchange rate", "The dollar to euro exchange rate is 1.10."),
        ("how does the dollar compare to the pound", "The dollar is currently worth 0.85 pounds."),
        (
            "what is the sensex and nifty points for today",
            "The Sensex and Nifty are stock market indices. As of today, November 29, 2026, the "
            "Sensex is at 5,400 points and the Nifty is at 14,000 points.",
        ),
        ("tell me the date, please", "The current date is 2023-04-18."),
        ("which day is it now", "Today is Saturday 2026-11-28."),  # a day off the prompt's
        ("what time is it in tokyo", "The current time in Tokyo is 3:45 PM."),
        ("do i need a coat in oslo today", "It is 5°C and cloudy in Oslo."),
    ],
)
def test_a_current_figure_nothing_gave(request_text: str, answer: str) -> None:
    assert current_figures(answer, request_text, f"{request_text}\n{FACTS}")


@pytest.mark.parametrize(
    ("request_text", "answer"),
    [
        ("when did apollo 11 launch", "Apollo 11 launched on July 16, 1969."),
        # an estimate worked out in words: no value that changes
        ("how many words are spoken daily on earth", "The current population is 7.9 billion."),
        ("which day is it now", "Today is Sunday 2026-11-29."),  # the user's own date
        ("is 10,000 yen a lot today", "10000 yen is a fair amount of money today."),
        ("how many degrees in a circle", "A circle has 360 degrees."),
        ("how many stocks are in the dow jones", "The Dow Jones has 30 stocks."),
        ("what is the exchange rate between euros and pesos", "I can't check that here."),
        ("how do you prepare an omelet", "Beat 3 eggs, then cook them for 2 minutes."),
        ("how do i bake bread today", "Now it's time to add 2 cups of flour."),
        ("what should i focus on today", "Here are 3 points to consider today."),
        ("any tips for today", "Today I'll share 5 tips."),
    ],
)
def test_no_current_figure(request_text: str, answer: str) -> None:
    assert not current_figures(answer, request_text, f"{request_text}\n{FACTS}")


def test_only_the_sentences_with_current_figures() -> None:
    answer = (
        "To exchange 10,000 yen you need the current rate.\n"
        "As of my last update, the exchange rate is 100 yen = 1 dollar."
    )
    request = "how many dollars can i exchange for 10000 yen"
    assert current_figures(answer, request, request) == [
        "As of my last update, the exchange rate is 100 yen = 1 dollar."
    ]
