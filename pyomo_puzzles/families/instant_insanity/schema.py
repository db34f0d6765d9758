"""JSON schema of an Instant Insanity instance file (YAML or JSON)."""

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles instant_insanity instance",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle"],
    "properties": {
        "puzzle": {"const": "instant_insanity"},
        "base": {"type": "string", "description": "another instance whose fields this one extends"},
        "title": {"type": "string"},
        "source": {"type": "string"},
        "colours": {
            "type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"type": "string", "minLength": 1},
            "description": "the colour names; as many colours as cubes",
        },
        "cubes": {
            "type": "array", "minItems": 1,
            "description": "per cube, the colours of faces 1..6 (1-4 the long sides in cyclic "
                           "order, 5 bottom, 6 top)",
            "items": {"type": "array", "minItems": 6, "maxItems": 6, "items": {"type": "string"}},
        },
        "question": {
            "enum": ["all_different", "all_equal"],
            "description": "all_different: every long side shows every colour once; all_equal: "
                           "every long side is one colour, the four sides different",
        },
        "order": {
            "enum": ["fixed", "any"],
            "description": "fixed: cube i is at level i (bottom = 1); any: the stack may reorder them",
        },
        "known": {
            "type": "object",
            "additionalProperties": False,
            "description": "published or independently computed figures for this instance",
            "properties": {
                "solvable": {"type": "boolean"},
                "solutions": {"type": "integer", "minimum": 0},
                "solutions_up_to_symmetry": {"type": "integer", "minimum": 0},
                "symmetry_group_order": {"type": "integer", "minimum": 1},
            },
        },
    },
}
