"""Emptiness tests in several spellings, two that only look like one, and a
solver that calls the model under test (not a judge)."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver


@scorer(metrics=[])
def checks_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        if not state.output:
            return Score(value=INCORRECT)
        if state.output.empty:
            return Score(value=INCORRECT)
        if not state.output.completion:
            return Score(value=INCORRECT)
        answer = state.output.completion.split("ANSWER:")[-1].strip()
        if answer == "":
            return Score(value=INCORRECT)
        if len(state.output.completion) == 0:
            return Score(value=INCORRECT)
        if len(answer.split()) > 1:
            return Score(value=INCORRECT)
        return Score(value=CORRECT if answer == target.text else INCORRECT)

    return score


@solver
def ask_twice() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        first = await get_model().generate(state.input_text)
        if not first.completion:
            state.output = await get_model().generate(state.input_text)
        return state

    return solve


@task
def checks() -> Task:
    return Task(dataset=[], solver=ask_twice(), scorer=checks_scorer())
