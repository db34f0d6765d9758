"""JSON schema of a packing instance file (YAML or JSON)."""

CELL = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles packing instance",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "board", "pieces"],
    "properties": {
        "puzzle": {"const": "packing"},
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
                "holes": {"type": "array", "items": CELL},
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
                    "name": {"type": "string", "pattern": "^[A-Za-z0-9_]+$"},
                    "cells": {"type": "array", "items": CELL, "minItems": 1},
                    "count": {"type": "integer", "minimum": 1},
                },
            },
        },
        "allow_reflections": {
            "type": "boolean",
            "description": "may a piece be mirrored (turned over in 2D); default true",
        },
        "known": {
            "type": "object",
            "additionalProperties": False,
            "description": "published or independently computed figures for this instance",
            "properties": {
                "placements": {"type": "integer", "minimum": 0},
                "solutions": {"type": "integer", "minimum": 0},
                "solutions_up_to_symmetry": {"type": "integer", "minimum": 0},
                "symmetry_group_order": {"type": "integer", "minimum": 1},
            },
        },
    },
}
