"""The data file of a Sudoku instance, as a JSON Schema (a misspelt field is an error)."""

from pyomo_puzzles_sudoku.grid import EMPTY, SYMBOLS

ROW = {"type": "string", "pattern": f"^[{EMPTY}{SYMBOLS}]+$",
       "description": "one row: digits 1-9, then A-Z for 10-35 and a for 36 on larger grids; '.' or '0' for an empty cell"}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "grid"],
    "properties": {
        "puzzle": {"const": "sudoku"},
        "name": {"type": "string"},
        "source": {"type": "string"},
        "box": {"enum": [2, 3, 4, 5, 6], "default": 3,
                "description": "box side: 2 for 4x4, 3 for 9x9, 4 for 16x16, 5 for 25x25, 6 for 36x36"},
        "grid": {"type": "array", "items": ROW, "minItems": 4, "maxItems": 36},
        "known": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "solutions": {"type": "integer", "minimum": 0},
                "solvable": {"type": "boolean", "description": "a completion exists (e.g. the generator's planted grid)"},
                "solution": {"type": "array", "items": ROW},
                "givens": {"type": "integer", "minimum": 0},
            },
        },
    },
}
