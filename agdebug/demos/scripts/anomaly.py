"""Demo: anomaly. Finding where a NaN gradient comes from with detect_anomaly().

sqrt'(x) = 1 / (2 sqrt(x)) is infinite at x = 0. Multiply sqrt(x) by 0 there and
the forward pass looks harmless, but backward computes 0 * inf = NaN, and the
NaN reaches x.grad with no error. Anomaly mode checks every node's output for
NaN, names the node that made it, and shows where its forward call was.

    python -m agdebug.demos.scripts.anomaly
"""

import itertools
import os
import re
import warnings

import agdebug as torch


def forward_frame_in_this_file(message: str) -> str:
    """From anomaly mode's 'Traceback of forward call', the innermost line of this demo."""
    lines = message.splitlines() + [""]
    here = os.path.basename(__file__)
    found = "not found"
    for frame, code in itertools.pairwise(lines):
        match = re.match(r'\s*File "(.+?)", line (\d+), in ', frame)
        if match and os.path.basename(match[1]) == here:   # keep the innermost such frame
            found = f"line {match[2]} of this demo: {code.split('#')[0].strip()}"
    return found


def main():
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    mask = torch.tensor([0.0, 1.0])

    # Step 1: without anomaly mode the NaN arrives in x.grad silently.
    y = (x.sqrt() * mask).sum()
    y.backward()
    print("Step 1: y = (x.sqrt() * mask).sum(); y.backward()")
    print("  y =", y.item(), "  x.grad =", x.grad, "  <- NaN, and no error")

    # Step 2: the same under detect_anomaly(): backward stops at the node that made the NaN.
    x.grad = None
    print("Step 2: the same inside torch.autograd.detect_anomaly()")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            y = (x.sqrt() * mask).sum()   # the forward line anomaly mode will point at
            try:
                y.backward()
            except RuntimeError as error:
                print("  RuntimeError:", error)
    print("  x.grad =", x.grad, " (backward stopped before reaching x)")

    # Step 3: anomaly mode recorded each node's forward stack; the warning shows it.
    detected = next(str(c.message) for c in caught if "Error detected" in str(c.message))
    print("Step 3: the warning anomaly mode raised alongside the error")
    print("  " + detected.split(". ")[0] + ".")
    print("  forward call:", forward_frame_in_this_file(detected))

    # Step 4: the fix: keep sqrt away from 0 so its derivative stays finite (0 * finite = 0).
    y = ((x + 1e-12).sqrt() * mask).sum()
    y.backward()
    print("Step 4: y = ((x + 1e-12).sqrt() * mask).sum(); y.backward()")
    print("  x.grad =", x.grad)


if __name__ == "__main__":
    main()
