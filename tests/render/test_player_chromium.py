"""The HTML player driven in headless Chromium (Playwright, Debian's ``chromium``): keys move
exactly one step whatever has focus, fit shows what the step draws, follow brings the step's
node into view, the step's sentence is under the drawing, and every step is reachable.

Skipped where Playwright, Chromium or Graphviz is absent. Timings are printed (``-s``),
never asserted: they depend on the machine.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.debug.narration import caption
from agdebug.render import export as ex
from agdebug.render.dot import DotOptions

sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install "
                               "playwright; no browser download: it drives Debian's chromium)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH"),
              pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")]


def _chain(ops: int):
    """A chain of ``ops`` ops recorded with values: 300 ops make 1,500 steps (over 400)."""
    with record(values=True) as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x
        for _ in range(ops // 2):
            y = y.sin() * 1.01
        y.sum().backward()
    return trace.timeline()


@pytest.fixture(scope="module")
def timeline():
    return _chain(120)


@pytest.fixture(scope="module")
def page(timeline, tmp_path_factory):
    path = tmp_path_factory.mktemp("player") / "p.html"
    ex.export(timeline, "html", path, options=DotOptions(values=True))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1200, "height": 800})
        errors = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(path.as_uri())   # from disk: everything it needs is inline
        load = tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        print(f"\nplayer of {len(timeline)} steps: loaded in {load:.0f} ms")
        yield tab
        assert not errors
        browser.close()


def _cur(tab) -> int:
    return tab.evaluate("cur")


@pytest.mark.parametrize("focus", ["#slider", "#next", "#follow", "body"])
def test_keys_move_exactly_one_step(page, focus):
    page.evaluate("show(5)")
    page.focus(focus) if focus != "body" else page.evaluate("document.activeElement.blur()")
    for key, expected in (("ArrowRight", 6), ("Space", 7), ("ArrowLeft", 6), ("Home", 0)):
        page.keyboard.press(key)
        assert (_cur(page), int(page.evaluate("slider.value"))) == (expected, expected), key
    page.keyboard.press("End")
    assert _cur(page) == page.evaluate("FRAMES.length") - 1
    assert page.evaluate("$('follow').checked")   # Space stepped; it toggled nothing


def test_wheel_zooms_about_the_pointer_and_drag_pans(page):
    page.keyboard.press("f")
    box = page.locator("#view").bounding_box()
    x, y = box["x"] + 200, box["y"] + 150
    before = page.evaluate(f"[k, ({x - box['x']} - tx) / k, ({y - box['y']} - ty) / k]")
    page.mouse.move(x, y)
    page.mouse.wheel(0, -300)
    page.wait_for_function(f"k > {before[0]}")
    after = page.evaluate(f"[k, ({x - box['x']} - tx) / k, ({y - box['y']} - ty) / k]")
    assert after[1:] == pytest.approx(before[1:], abs=0.5)   # the same point under it
    tx = page.evaluate("tx")
    page.mouse.down()
    page.mouse.move(x + 80, y, steps=4)
    page.mouse.up()
    assert page.evaluate("tx") == pytest.approx(tx + 80, abs=1)


def _inside(page, selector: str) -> bool:
    return page.evaluate("""(sel) => {
      const b = document.querySelector(sel).getBoundingClientRect();
      const r = view.getBoundingClientRect();
      return b.width > 0 && b.left >= r.left - 1 && b.right <= r.right + 1 &&
             b.top >= r.top - 1 && b.bottom <= r.bottom + 1; }""", selector)


def _all_shown_inside(page) -> bool:
    """Every element the step draws is in the view."""
    return page.evaluate("""() => {
      const r = view.getBoundingClientRect();
      return [...groups.values()].filter((g) => g.style.display !== 'none').every((g) => {
        const b = g.getBoundingClientRect();
        return b.left >= r.left - 1 && b.right <= r.right + 1 &&
               b.top >= r.top - 1 && b.bottom <= r.bottom + 1; }); }""")


def test_fit_shows_what_the_step_draws(page):
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("End")
    page.keyboard.press("f")
    assert _all_shown_inside(page)
    for _ in range(6):
        page.keyboard.press("+")
    assert not _all_shown_inside(page)
    page.keyboard.press("f")
    assert _all_shown_inside(page)
    page.evaluate("fit(true)")   # (the whole drawing, as at load when it is legible)
    assert _inside(page, "#stage svg")


def test_fit_of_a_long_run_is_not_its_whole_tiny_layout(page, tmp_path):
    """Ten training steps: the player's layout holds every step's nodes, most of them hidden
    at the last step; fit there shows what it draws at natural size, not the whole at 0.3x."""
    ag.manual_seed(0)
    model = ag.nn.Sequential(ag.nn.Linear(4, 8), ag.nn.ReLU(), ag.nn.Linear(8, 1))
    x, y = ag.randn(16, 4), ag.randn(16, 1)
    with record() as trace:
        for _ in range(10):
            model.zero_grad()
            ag.nn.functional.mse_loss(model(x), y).backward()
    path = tmp_path / "run.html"
    ex.export(trace.timeline(), "html", path)
    tab = page.context.browser.new_page()   # (the module's browser: one Playwright per thread)
    tab.set_viewport_size({"width": 1200, "height": 800})
    tab.goto(path.as_uri())
    tab.keyboard.press("End")
    tab.keyboard.press("f")
    k, whole = tab.evaluate("[k, fitK]")
    assert _all_shown_inside(tab)
    assert whole < 0.5 and k == pytest.approx(1)   # (at most natural size)
    tab.close()


def test_a_graph_too_big_to_read_whole_opens_legible_around_the_steps_node(page, tmp_path):
    """A two-layer Transformer's graph fits its view only at a scale no one can read: it
    opens at LEGIBLE, from its top, with the first step's node in view; f fits it whole."""
    ag.manual_seed(0)
    layer = ag.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
    encoder, head = ag.nn.TransformerEncoder(layer, num_layers=2), ag.nn.Linear(16, 5)
    x, target = ag.randn(2, 6, 16), ag.randint(0, 5, (12,))
    with record() as trace:
        logits = head(encoder(x))
        ag.nn.functional.cross_entropy(logits.reshape(-1, 5), target).backward()
    path = tmp_path / "tall.html"
    ex.export(trace.timeline(), "html", path)
    tab = page.context.browser.new_page()
    tab.set_viewport_size({"width": 1200, "height": 800})
    tab.goto(path.as_uri())
    k, legible, key = tab.evaluate("[k, LEGIBLE, about[cur]]")
    assert k == pytest.approx(legible)
    assert key and _inside(tab, f"[data-key='{key}']")
    tab.keyboard.press("f")
    assert tab.evaluate("k") < legible and _all_shown_inside(tab)
    tab.close()


def test_follow_brings_the_steps_node_into_view(page):
    last = page.evaluate("FRAMES.length") - 1
    step = page.evaluate(f"about.findIndex((key, i) => i > 0 && key && key !== about[{last}])")
    page.evaluate(f"show({step}); zoom(2, 0, 0); tx = 1e5; ty = 1e5; place()")   # far away
    selector = f"[data-key='{page.evaluate(f'about[{last}]')}']"
    page.evaluate("$('follow').checked = false")
    page.keyboard.press("End")
    assert not _inside(page, selector)
    page.keyboard.press("Home")
    page.evaluate("$('follow').checked = true; tx = 1e5; ty = 1e5; place()")
    page.keyboard.press("End")
    assert _inside(page, selector)


def test_every_step_and_its_sentence_are_on_the_page(page, timeline):
    frames = page.evaluate("FRAMES.length")
    assert frames == len(ex.frame_steps(timeline, max_frames=None)) > 400   # no sampling
    page.keyboard.press("End")
    assert page.inner_text("#label").startswith(f"step {len(timeline)} ")
    assert page.inner_text("#event") == caption(timeline, len(timeline))
    assert page.evaluate("""() => {   // under the drawing, in the window
      const e = $('event').getBoundingClientRect(), v = view.getBoundingClientRect();
      return e.height > 0 && e.top >= v.bottom - 1 && e.bottom <= innerHeight + 1; }""")


def test_values_rows_follow_the_step(page):
    """A node's gradient statistics are set in its own text elements at each step."""
    page.keyboard.press("End")
    rows = json.loads(page.evaluate("JSON.stringify(Object.entries(now).filter("
                                    "([k, s]) => s[7] && s[7].some((r) => r)))"))
    key, style = rows[0]
    texts = page.evaluate(f"[...groups.get('{key}').querySelectorAll('text')]"
                          ".map((t) => t.textContent)")
    assert all(row in texts for row in style[7])
    page.keyboard.press("Home")   # before the backward: no gradient yet, rows emptied
    texts = page.evaluate(f"[...groups.get('{key}').querySelectorAll('text')]"
                          ".map((t) => t.textContent)")
    assert not [t for t in texts if re.match(r"(grad )?min ", t)]


def test_step_timings(page):
    """Printed, not asserted: show(i) forwards, backwards, and the Home/End jumps."""
    times = page.evaluate("""() => {
      const n = FRAMES.length, time = (i) => { const a = performance.now(); show(i);
                                             return performance.now() - a; };
      time(0);
      const steps = [];
      for (let i = 1; i < n; i++) steps.push(time(i));
      for (let i = n - 2; i >= 0; i--) steps.push(time(i));
      steps.sort((a, b) => a - b);
      return {median: steps[steps.length >> 1], max: steps[steps.length - 1],
              end: time(n - 1), home: time(0)}; }""")
    print("show(i) ms:", {k: round(v, 2) for k, v in times.items()})
