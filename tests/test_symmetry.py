"""Group sizes and orientation counts that are known facts of geometry."""

from pyomo_puzzles.core.symmetry import axis_maps, box_symmetries, orientations

L_TROMINO = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
F_PENTOMINO = [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)]
S_TETROMINO = [(0, 1), (0, 2), (1, 0), (1, 1)]


def test_group_orders():
    assert len(axis_maps(2)) == 8 and len(axis_maps(2, rotations_only=True)) == 4
    assert len(axis_maps(3)) == 48 and len(axis_maps(3, rotations_only=True)) == 24


def test_box_symmetries_only_swap_equal_axes():
    assert len(box_symmetries((3, 3, 3))) == 48
    assert len(box_symmetries((2, 3))) == 4  # a non-square rectangle: identity, two mirrors, half turn
    assert len(box_symmetries((2, 2, 3))) == 16
    assert len(box_symmetries((6, 10), rotations_only=True)) == 2


def test_orientation_counts():
    assert len(orientations(L_TROMINO, rotations_only=True)) == 12  # 144 placements / 12 positions
    assert len(orientations(F_PENTOMINO, rotations_only=False)) == 8
    assert len(orientations(F_PENTOMINO, rotations_only=True)) == 4
    assert len(orientations(S_TETROMINO, rotations_only=False)) == 4
    assert len(orientations(S_TETROMINO, rotations_only=True)) == 2


def test_rotations_have_determinant_one():
    for m in axis_maps(3):
        image = [m.apply_free(v) for v in [(1, 0, 0), (0, 1, 0), (0, 0, 1)]]
        det = (image[0][0] * (image[1][1] * image[2][2] - image[1][2] * image[2][1])
               - image[0][1] * (image[1][0] * image[2][2] - image[1][2] * image[2][0])
               + image[0][2] * (image[1][0] * image[2][1] - image[1][1] * image[2][0]))
        assert det == (1 if m.is_rotation else -1)
