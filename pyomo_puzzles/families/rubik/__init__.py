"""Rubik's cubes (work in progress, issue 5): the geometry of face turns (`cube`) and the
breadth-first distance table of the 2x2x2 (`distances`). The family registers itself once
it has formulations."""
