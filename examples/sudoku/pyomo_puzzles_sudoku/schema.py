"""The data file of a Sudoku instance, as a JSON Schema (a misspelt field is an error)."""

ROW = {"type": "string", "pattern": "^[0-9.]+$", "description": "one row: digits, '.' or '0' for an empty cell"}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "grid"],
    "properties": {
        "puzzle": {"const": "sudoku"},
        "name": {"type": "string"},
        "source": {"type": "string"},
        "box": {"enum": [2, 3], "default": 3, "description": "box side: 3 for 9x9, 2 for 4x4"},
        "grid": {"type": "array", "items": ROW, "minItems": 4, "maxItems": 9},
        "known": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "solutions": {"type": "integer", "minimum": 0},
                "solution": {"type": "array", "items": ROW},
                "givens": {"type": "integer", "minimum": 0},
            },
        },
    },
}
