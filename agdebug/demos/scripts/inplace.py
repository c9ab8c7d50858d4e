"""Demo: inplace. Changing a tensor that backward still needs is caught by its version counter.

Every tensor carries a version counter (t._version) that each in-place op bumps.
A node that saves a tensor remembers its version; if the version has moved when
backward unpacks it, the gradient would be computed from the wrong values, so
autograd raises instead.

    python -m agdebug.demos.scripts.inplace
"""

import itertools
import os
import re
import textwrap
import warnings

import agdebug as torch


def show_error(error: Exception) -> None:
    print("  RuntimeError:")
    print(textwrap.fill(str(error), width=88, initial_indent="    ", subsequent_indent="    "))


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
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

    # Step 1: ExpBackward0 saves its own result b (d exp(a)/da = exp(a) = b).
    b = a.exp()
    print("Step 1: b = a.exp()      b._version =", b._version, "  b.grad_fn:", b.grad_fn.name())

    # Step 2: an in-place op bumps the version and becomes b's new grad_fn.
    b.add_(1)
    print("Step 2: b.add_(1)        b._version =", b._version, "  b.grad_fn:", b.grad_fn.name())

    # Step 3: backward needs b at version 0 and finds version 1.
    # The message names the tensor by the op that produced it: "output 0 of Exp".
    print("Step 3: b.sum().backward()")
    try:
        b.sum().backward()
    except RuntimeError as error:
        show_error(error)

    # Step 4: when a saved *input* is modified, the message names the in-place op ("Add"),
    # not the node that failed. Anomaly mode names that node and where its forward ran.
    print("Step 4: w = a * 3; z = w.sin(); w.add_(1); z.sum().backward(), in detect_anomaly()")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            w = a * 3
            z = w.sin()   # SinBackward0 saves w (d sin(w)/dw = cos(w)) at version 0
            w.add_(1)
            try:
                z.sum().backward()
            except RuntimeError as error:
                print("  error names:", re.search(r"output \d+ of \w+", str(error)).group(),
                      "- version", w._version, "instead of 0")
    detected = next(str(c.message) for c in caught if "Error detected" in str(c.message))
    print("  anomaly mode:", detected.split(". ")[0] + ".")
    print("  forward call:", forward_frame_in_this_file(detected))

    # Step 5: the fixes: an out-of-place op leaves the saved tensor alone ...
    a.grad = None
    b = a.exp()
    c = b + 1
    c.sum().backward()
    print("Step 5: c = b + 1 (out of place) works: a.grad =", a.grad, " b._version =", b._version)

    # ... and in-place ops are fine on a tensor no node saved: MulBackward0 needs only the
    # factor 3 for its derivative, never its own output s.
    a.grad = None
    s = a * 3
    s.add_(1)
    s.sum().backward()
    print("  s = a * 3; s.add_(1) works too: a.grad =", a.grad, " s._version =", s._version)


if __name__ == "__main__":
    main()
