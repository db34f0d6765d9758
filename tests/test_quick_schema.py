"""`core.quick_schema` answers "valid" without importing jsonschema; it must never call valid
what jsonschema rejects. Held to that against jsonschema itself (the reference), on the
fuzzed data files of every family and the fuzzed experiment configurations, and on the
corners of JSON equality and of the project's own integer and number types."""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pyomo_puzzles.core import instances, quick_schema, registry
from test_fuzz import CONFIG_SCHEMA, LONG, QUICK, long_budget, mutated, seed_configs, seed_instances


def jsonschema_says_valid(data, schema) -> bool:
    return instances.validator_class()(schema).is_valid(data)


def agrees(data, schema) -> None:
    quick = quick_schema.conforms(data, schema)
    if quick is not None:
        assert quick == jsonschema_says_valid(data, schema), (quick, data)


@settings(QUICK, max_examples=300)
@given(data=st.data())
def test_agrees_with_jsonschema_on_fuzzed_data_files(data) -> None:
    seed = data.draw(st.sampled_from(sorted(seed_instances())))
    tree = seed_instances()[seed]
    _, tree = data.draw(mutated(tree))
    family = registry.family(seed.split("/")[0])
    agrees(tree, family.schema)


@settings(QUICK, max_examples=200)
@given(data=st.data())
def test_agrees_with_jsonschema_on_fuzzed_configurations(data) -> None:
    schema = yaml.safe_load(CONFIG_SCHEMA.read_text())
    seed = data.draw(st.sampled_from(sorted(seed_configs())))
    _, tree = data.draw(mutated(seed_configs()[seed]))
    agrees(tree, schema)


@pytest.mark.fuzz
@pytest.mark.timeout(3600)
@settings(LONG, max_examples=long_budget(4000))
@given(data=st.data())
def test_agrees_with_jsonschema_long(data) -> None:
    """The long run (``pytest -m fuzz tests/test_quick_schema.py``): data files and
    configurations drawn alike; `event` counts the verdicts (--hypothesis-show-statistics)."""
    from hypothesis import event

    if data.draw(st.booleans()):
        seed = data.draw(st.sampled_from(sorted(seed_instances())))
        schema = registry.family(seed.split("/")[0]).schema
        _, tree = data.draw(mutated(seed_instances()[seed]))
    else:
        seed = data.draw(st.sampled_from(sorted(seed_configs())))
        schema = yaml.safe_load(CONFIG_SCHEMA.read_text())
        _, tree = data.draw(mutated(seed_configs()[seed]))
    quick = quick_schema.conforms(tree, schema)
    event(f"quick {quick}, jsonschema {jsonschema_says_valid(tree, schema)}")
    agrees(tree, schema)


def test_every_shipped_file_is_answered_without_jsonschema() -> None:
    """The point of it: the shipped files and configurations are valid, and said so quickly."""
    for name, tree in seed_instances().items():
        assert quick_schema.conforms(tree, registry.family(name.split("/")[0]).schema) is True, name
    schema = yaml.safe_load(CONFIG_SCHEMA.read_text())
    for name, config in seed_configs().items():
        assert quick_schema.conforms(config, schema) is True, name


CORNERS = [
    ({"enum": [1]}, True), ({"enum": [1]}, 1.0), ({"enum": [True]}, 1), ({"const": 0}, False),
    ({"const": [1, {"a": 2}]}, [1.0, {"a": 2}]), ({"const": {"a": 1}}, {"a": 1, "b": 2}),
    ({"type": "integer"}, 3.0), ({"type": "integer"}, True), ({"type": "integer"}, 3),
    ({"type": "number"}, math.nan), ({"type": "number"}, math.inf), ({"type": "number"}, 2.5),
    ({"type": ["string", "null"]}, None), ({"type": "array"}, (1, 2)),
    ({"uniqueItems": True}, [1, True]), ({"uniqueItems": True}, [1, 1.0]), ({"uniqueItems": True}, [[1], [1.0]]),
    ({"uniqueItems": True}, [{"a": 1}, {"a": 1}]), ({"uniqueItems": True}, [0, False, None, "0"]),
    ({"minimum": 1}, True), ({"minimum": 1}, 0), ({"minimum": 1}, "0"), ({"exclusiveMaximum": 2}, 2),
    ({"pattern": "^a+$"}, "aab"), ({"pattern": "b"}, "abc"), ({"minLength": 2}, "é"),
    ({"properties": {"a": {"type": "integer"}}, "additionalProperties": False}, {"a": 1, "b": 2}),
    ({"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}, {"b": "x"}),
    ({"required": ["a"]}, {"b": 1}), ({"required": ["a"]}, [1]),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, {"ab": 1, "c1": 2}),
    ({"items": {"type": "integer"}, "minItems": 2}, [1]), ({"items": False}, []),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3), ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, -3),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 1), ({"not": {"type": "string"}}, 1),
    ({"allOf": [{"minimum": 0}, {"maximum": 1}]}, 2),
]


@pytest.mark.parametrize("schema, data", CORNERS, ids=[f"{s}-{d!r}" for s, d in CORNERS])
def test_corners_of_json_equality_and_types(schema, data) -> None:
    assert quick_schema.conforms(data, schema) == jsonschema_says_valid(data, schema)


@pytest.mark.parametrize("schema", [{"$ref": "#/$defs/x", "$defs": {"x": {}}}, {"prefixItems": [{}]},
                                    {"patternProperties": {"^a": {}}}, {"if": {}, "then": {}},
                                    {"type": "integr"}, {"items": [{}]}])
def test_a_keyword_it_does_not_know_goes_to_jsonschema(schema) -> None:
    assert quick_schema.conforms({"a": [1]}, schema) is None
