"""Answers that say something was done though no tool ran: what counts and what does not.

The first claims are the 1.5B model's own answers to HWU64's requests for an action with
nothing offered that could act (benchmarks/llm/results), and so are the first plain answers;
the rest pin down the rules (tenses, the passive, long answers, verbs that also work things
out).
"""

from __future__ import annotations

import pytest

from homeclaw_cli.core.action_claims import claims_action, offers_action

CLAIMS = [
    ("set an alarm at six am tomorrow", "Set an alarm for 6 AM tomorrow."),
    ("set an alarm at six am tomorrow", "Sure, set an alarm for 6 AM tomorrow."),
    ("please turn on the lights", "Sure, I'll turn on the lights."),
    ("turn the lights on brighter", "Sure, I can turn the lights on brighter."),
    ("could you order sushi for tonight dinner", "Sure, I can order sushi for you tonight."),
    ("book a train for me", "Sure, I can help you book a train for you. Please provide:\n1. ..."),
    ("please play me a song", "Sure, I'd be happy to play a song from your favorite list!"),
    ("switch on the lights", "Switch on the lights."),
    ("turn off the radio", "Turn off the radio."),
    ("turn on the lamp", "On."),
    ("remind me to call mom", "Done!"),
    ("email james about the game", "I've sent James an email about the softball game."),
    ("cancel my dentist appointment", "Your appointment has been cancelled."),
    ("wake me at seven", "Your alarm is all set for 7 AM."),
    ("set an alarm for six", "An alarm has been set for 6 AM."),
    ("turn the porch light on", "The porch light is now on."),
    ("dim the kitchen lights", "The kitchen lights are now dimmed to 30%."),
    ("add milk to my shopping list", "I have added milk to your shopping list."),
    ("reserve a table for two at 7", "I booked you a table for two at 7 pm."),
    ("play some jazz", "I'm playing some smooth jazz for you now."),
    # the act reported after an agreeing word, or in a few words, to an order
    ("remind me to buy milk", "Sure, set a reminder for 2026-11-29 at 10 AM."),
    ("remind me to buy milk", "Done! I added buy milk to your list."),
    ("remind me to buy milk", "Reminder set for 10 AM."),
    ("order more eggs", "Okay, eggs ordered: a dozen arrive on Friday."),
    ("turn the heating up", "Heating turned up to 21 degrees."),
    # a long offer to an order is still one (the 1.5B model's, 551 characters)
    (
        "can you book a train ticket for my father",
        "Yes, I can help you book a train ticket for your father. Please provide the following "
        "details:\n\n"
        + "".join(f"{n}. **Detail {n}**: what it is, how to give it.\n" for n in range(12))
        + "\nOnce you have provided these details, I will help you book the ticket.",
    ),
]

PLAIN = [
    ("play oldschool rap", "You can play oldschool rap on YouTube, SoundCloud or Spotify."),
    ("set an alarm forty minutes from now", "To set an alarm, open the clock app on your phone."),
    ("book a train for me", "I can't book tickets here."),
    ("could you order sushi", "I cannot order food for you, but I can suggest sushi places."),
    ("can you play my favorite music", "Sure, I can help you with that! What's your favorite?"),
    ("conflict resolution strategies", "Open communication, active listening and empathy."),
    ("write an email to ray", "Subject: Meeting\n\nDear Ray, I've set aside time on Monday ..."),
    ("what is set theory", "Set theory is the branch of mathematics that studies sets."),
    ("how do i address a letter", "I can address that: put the name on the first line."),
    ("whats the capital of australia", "Canberra."),
    ("add 5 and 7", "Add 5 and 7 to get 12."),
    ("turn 90 minutes into hours", "Turn 90 minutes into hours: 1.5 hours."),
    ("create a list of three dog names", "Create a list: Rex, Bella, Max."),
    ("as a sports commentator, describe the winning play", "I call it the play of the year!"),
    ("you are a street musician; tell me about your day", "I play the guitar on the corner."),
    ("is the game on tonight", "I'm not sure; check the league's schedule."),
    ("when is the super bowl", "The Super Bowl is scheduled for February 8, 2027."),
    ("when did apollo 11 launch", "Apollo 11 launched on July 16, 1969."),
    ("book a table for two at luigi's", "Sure! Call Luigi's at 555-0134 to book."),
    ("remind me to buy milk", "Sure! Buy it on your way home."),
    ("set the table for dinner", "Sure, the table is a nice place to start the evening."),
    (
        "write a movie review of a new science fiction film",
        "I've booked my seat for the premiere of Starfall, and it was worth it. " * 8,
    ),
    (
        "order a twelve piece wing combo with fries and a large sprite, extra sauce please",
        "Order a twelve-piece wing combo from the counter, or through the restaurant's app, "
        "which usually lets you add fries, a drink and extra sauce.",
    ),
]


@pytest.mark.parametrize(("request_text", "answer"), CLAIMS)
def test_an_act_said_to_be_done_or_under_way_is_a_claim(request_text: str, answer: str) -> None:
    assert claims_action(answer, request_text)


@pytest.mark.parametrize(("request_text", "answer"), PLAIN)
def test_advice_refusals_and_answers_are_not_claims(request_text: str, answer: str) -> None:
    assert not claims_action(answer, request_text)


# The 1.5B model's answers to HWU64's requests for an act (benchmarks/llm/results), then the
# rules: only an offer, or an offer and a question for the act's details.
OFFERS = [
    ("can you play my favorite music", "Sure, I can help you with that! What's your favorite?"),
    (
        "play my first favorite song on loop",
        "Sure, I can help you with that! Please provide me with the name of your first song.",
    ),
    (
        "can you book a train ticket for my father",
        "Sure, I can help you with that. Please provide me with the following details:\n"
        "1. Departure and arrival stations\n2. Date",
    ),
    ("switch on the lights", "Sure, I can help you with that."),
    ("wake me up at six thirty", "Sure, I can help with that."),
    ("please turn on the porch light", "I'd be happy to help!"),
    ("order a pizza", "Of course, I can do that. Which size would you like?"),
]

NOT_OFFERS = [
    # the request orders no act in the world, or writes, or works something out
    (
        "can you help me write a resignation letter",
        "Sure, I can help you with that. What is your name?",
    ),
    ("add 5 and 7", "Sure, I can help with that. Do you mean 5 + 7?"),
    (
        "i'd like a reservation for two at the olive garden",
        "Sure, I can help with that. Please let me know if you need any further assistance.",
    ),
    ("turn 90 minutes into hours", "Sure, I can help with that!"),
    # the offer goes on to answer
    (
        "book me a flight to jackson",
        "Sure, I can help you with that. Here's a step-by-step guide to booking a flight: ...",
    ),
    ("send me a joke", "Sure, I can help you with that! Why did the chicken cross the road?"),
    # no offer
    ("play some jazz", "I can't play music here."),
    ("book a train for me", "Which station do you leave from?"),
    ("switch on the lights", "Sure, I can help you with that. " + "Lights are a feature. " * 30),
]


@pytest.mark.parametrize(("request_text", "answer"), OFFERS)
def test_an_offer_to_do_the_ordered_act_is_found(request_text: str, answer: str) -> None:
    assert offers_action(answer, request_text)


@pytest.mark.parametrize(("request_text", "answer"), NOT_OFFERS)
def test_answers_offers_to_write_and_offers_that_answer_are_not_offers_of_an_act(
    request_text: str, answer: str
) -> None:
    assert not offers_action(answer, request_text)
