"""JSON schema of an Instant Insanity design instance (YAML or JSON)."""

TOWER_KINDS = ("all_different", "all_equal")

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles instant_insanity_design instance",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle"],
    "properties": {
        "puzzle": {"const": "instant_insanity_design"},
        "base": {"type": "string", "description": "another instance whose fields this one extends"},
        "title": {"type": "string"},
        "source": {"type": "string"},
        "colours": {
            "type": "array", "minItems": 2, "uniqueItems": True,
            "items": {"type": "string", "minLength": 1},
            "description": "the colour names; as many colours as cubes",
        },
        "cubes": {
            "type": "array", "minItems": 2,
            "description": "the set to start from, per cube the colours of faces 1..6 (1-4 the long "
                           "sides in cyclic order, 5 bottom, 6 top): repaint as few faces as possible. "
                           "Give `number_of_cubes` instead to design a set from nothing",
            "items": {"type": "array", "minItems": 6, "maxItems": 6, "items": {"type": "string"}},
        },
        "number_of_cubes": {
            "type": "integer", "minimum": 2,
            "description": "design a set of this many cubes from nothing (feasibility; no `cubes`)",
        },
        "towers": {
            "type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(TOWER_KINDS)},
            "description": "the set must stack into a tower of each kind named (cube order fixed): "
                           "all_different, every long side shows every colour once; all_equal, every "
                           "long side is one colour, the four sides different",
        },
        "every_colour": {
            "type": "boolean",
            "description": "every cube shows every colour at least once (Loeffler et al.'s design "
                           "questions; at most 6 colours). Default true",
        },
        "known": {
            "type": "object",
            "additionalProperties": False,
            "description": "published or independently computed figures for this instance",
            "properties": {
                "solvable": {"type": "boolean"},
                "objective": {"type": "integer", "minimum": 0,
                              "description": "the fewest faces to repaint"}
            },
        },
    },
}
