"""JSON schema of a Rubik's cube instance file (YAML or JSON)."""

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles rubik instance",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "size", "metric"],
    "properties": {
        "puzzle": {"const": "rubik"},
        "title": {"type": "string"},
        "source": {"type": "string"},
        "size": {"type": "integer", "enum": [2, 3], "description": "2: the pocket cube; 3: Rubik's cube"},
        "scramble": {"type": "string", "description": "moves in standard notation, e.g. \"R U2 F'\""},
        "state": {"type": "string",
                  "description": "the stickers as a facelet string: faces U R F D L B, each in reading "
                                 "order, one letter per sticker naming the face whose colour it has"},
        "metric": {"enum": ["htm", "qtm"], "description": "htm: a half turn is one move; qtm: two"},
        "steps": {"type": "integer", "minimum": 1,
                  "description": "step bound of the model (default: God's number of the cube and metric)"},
        "known": {"type": "object", "additionalProperties": False,
                  "properties": {"distance": {"type": "integer", "minimum": 0}}},
    },
}
