"""The terminal layout: ranks, no overlaps, edges drawn, and big graphs laid out."""

from __future__ import annotations


from agdebug_tui.layout import BOX_HEIGHT, layout, topology

from agdebug.debug.state import NodeView


def chain(n: int) -> dict:
    nodes = {1: NodeView(1, "torch::autograd::AccumulateGrad")}
    for i in range(2, n + 1):
        nodes[i] = NodeView(i, "MulBackward0", edges=((i - 1, 0),))
    return nodes


def diamond() -> dict:
    return {1: NodeView(1, "AccumulateGrad"), 2: NodeView(2, "ExpBackward0", edges=((1, 0),)),
            3: NodeView(3, "SinBackward0", edges=((1, 0),)),
            4: NodeView(4, "AddBackward0", edges=((2, 0), (3, 0))),
            5: NodeView(5, "SumBackward0", edges=((4, 0), (1, 0)))}


def text(lay) -> list[str]:
    grid = [[" "] * lay.width for _ in range(lay.height)]
    for y, row in enumerate(lay.rows):
        for run in row:
            grid[y][run.x:run.x + len(run.text)] = run.text
    return ["".join(r) for r in grid]


def test_consumers_are_drawn_above_their_inputs():
    lay = layout(diamond())
    assert lay.boxes[5].y < lay.boxes[4].y < lay.boxes[2].y < lay.boxes[1].y
    assert lay.boxes[2].y == lay.boxes[3].y


def test_boxes_never_overlap_and_edges_are_drawn():
    lay = layout(diamond())
    boxes = list(lay.boxes.values())
    for a in boxes:
        for b in boxes:
            if a is not b and a.y == b.y:
                assert a.x + a.w <= b.x or b.x + b.w <= a.x
    drawn = "\n".join(text(lay))
    assert drawn.count("▼") >= 4 and "AccumulateGrad" in drawn
    # the long edge 5 -> 1 passes the middle ranks in its own column
    assert any(run.role == "edge" and (5, 1) in run.owner for row in lay.rows for run in row)


def test_node_at_finds_the_box_under_a_cell():
    lay = layout(diamond())
    box = lay.boxes[4]
    assert lay.node_at(box.x + 1, box.y + BOX_HEIGHT - 1) == 4
    assert lay.node_at(lay.width + 5, 0) is None


def test_layout_is_deterministic_and_keyed_by_topology():
    a, b = layout(diamond()), layout(diamond())
    assert text(a) == text(b) and a.key == topology(diamond())


def test_two_thousand_nodes_lay_out():
    # How fast is measured in benchmarks/ (the TUI step row), never asserted here.
    lay = layout(chain(2000))
    assert len(lay.boxes) == 2000 and lay.height > 2000 * BOX_HEIGHT
