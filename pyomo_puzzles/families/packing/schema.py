"""JSON schema of a packing instance file (YAML or JSON)."""

CELL = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}
CELLS = {"type": "array", "items": CELL}
NAME = {"type": "string", "pattern": "^[A-Za-z0-9_]+$"}
MARKS = {
    "type": "object",
    "description": "named per-cell attributes, e.g. {ring: [[0, 0]]}: the cells that carry them",
    "propertyNames": {"type": "string", "pattern": "^[A-Za-z0-9_]+$"},
    "additionalProperties": CELLS,
}
FACE = {
    "type": "array",
    "description": "rows (top first) of colour names as seen looking at the face; '?' = unknown",
    "items": {"type": "array", "items": {"type": "string"}},
}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles packing instance",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle"],
    "properties": {
        "puzzle": {"const": "packing"},
        "base": {
            "type": "string",
            "description": "a shipped instance (family/name) or a file path (relative to this "
                           "file) whose board, pieces and rules this file extends",
        },
        "title": {"type": "string"},
        "source": {"type": "string"},
        "notes": {"type": "string"},
        "board": {
            "type": "object",
            "additionalProperties": False,
            "required": ["size"],
            "properties": {
                "size": {"type": "array", "items": {"type": "integer", "minimum": 1},
                         "minItems": 2, "maxItems": 3},
                "holes": CELLS,
            },
        },
        "pieces": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "cells"],
                "properties": {
                    "name": NAME,
                    "cells": {"type": "array", "items": CELL, "minItems": 1},
                    "count": {"type": "integer", "minimum": 1},
                    "colour": NAME,
                    "marks": MARKS,
                    "flippable": {"type": "boolean",
                                  "description": "may this piece be mirrored (overrides allow_reflections)"},
                },
            },
        },
        "allow_reflections": {
            "type": "boolean",
            "description": "may pieces be mirrored (turned over in 2D); default true",
        },
        "pegs": {
            "type": "array",
            "description": "a peg of colour c at a cell must lie under a ring (mark) of a piece of colour c",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["colour", "cell"],
                "properties": {"colour": NAME, "cell": CELL, "mark": NAME},
            },
        },
        "requirements": {
            "type": "array",
            "description": "cells that must be covered by a piece of a colour and/or by a marked cell",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["cell"],
                "properties": {"cell": CELL, "colour": NAME, "mark": NAME},
            },
        },
        "faces": {
            "type": "object",
            "additionalProperties": False,
            "description": "colour clues on the faces of a 3D box",
            "properties": {name: FACE for name in ("front", "back", "left", "right", "top", "bottom")},
        },
        "fixed": {
            "type": "array",
            "description": "pre-placed pieces",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["piece", "cells"],
                "properties": {"piece": NAME, "cells": CELLS, "marks": MARKS},
            },
        },
        "known": {
            "type": "object",
            "additionalProperties": False,
            "description": "published or independently computed figures for this instance",
            "properties": {
                "placements": {"type": "integer", "minimum": 0},
                "solutions": {"type": "integer", "minimum": 0},
                "solutions_up_to_symmetry": {"type": "integer", "minimum": 0},
                "solutions_with_variants": {"type": "integer", "minimum": 0},
                "symmetry_group_order": {"type": "integer", "minimum": 1},
            },
        },
    },
}
