"""max_tokens set directly and through variables (an installed-package
layout: PATH holds inspect_evals/)."""

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState, generate

from inspect_evals.tokens import defaults
from inspect_evals.tokens._constants import MAX_TOKENS as IMPORTED_CAP

LOCAL_CAP = 512


@task
def tokens_literal() -> Task:
    return Task(dataset=[], config=GenerateConfig(max_tokens=256))


@task
def tokens_module_constant() -> Task:
    return Task(dataset=[], config=GenerateConfig(max_tokens=LOCAL_CAP))


@task
def tokens_imported_constant() -> Task:
    return Task(dataset=[], config=GenerateConfig(max_tokens=IMPORTED_CAP))


@task
def tokens_parameter_default(max_tokens: int = 64) -> Task:
    return Task(dataset=[], solver=generate(max_tokens=max_tokens))


@task
def tokens_local_variable() -> Task:
    cap = LOCAL_CAP * 2
    config = GenerateConfig(max_tokens=cap)
    return Task(dataset=[], config=config)


@task
def tokens_none(limit: int | None = None) -> Task:
    return Task(dataset=[], config=GenerateConfig(max_tokens=limit))


def tokens_no_default(limit: int) -> Task:
    return Task(dataset=[], config=GenerateConfig(max_tokens=limit))


@scorer(metrics=[])
def tokens_judge() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        if not state.output.completion:
            return Score(value=0)
        judge = get_model(
            role="grader", config=GenerateConfig(max_tokens=defaults.JUDGE_MAX_TOKENS)
        )
        reply = await judge.generate(state.output.completion)
        return Score(value=reply.completion)

    return score
