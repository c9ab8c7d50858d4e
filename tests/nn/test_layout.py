"""agdebug.nn is laid out as torch.nn: each class in the file where torch has it, and
``nn.modules`` exporting what torch's does (for the classes agdebug has)."""

from __future__ import annotations

import inspect

import agdebug as ag


def _classes(namespace) -> dict:
    return {name: getattr(namespace, name) for name in namespace.__all__
            if inspect.isclass(getattr(namespace, name))}


def test_each_class_lives_in_the_module_where_torch_has_it(torch):
    ours = _classes(ag.nn)
    shared = [name for name in ours if hasattr(torch.nn, name)]
    assert len(shared) > 130
    wrong = {name: (ours[name].__module__, getattr(torch.nn, name).__module__)
             for name in shared
             if ours[name].__module__ != "agdebug" + getattr(torch.nn, name).__module__[5:]}
    assert wrong == {}


def test_nn_modules_exports_what_torch_exports(torch):
    ours, theirs = set(ag.nn.modules.__all__), set(torch.nn.modules.__all__)
    assert ours <= theirs
    assert {name for name in theirs if hasattr(ag.nn, name)} <= ours
    assert all(getattr(ag.nn.modules, name) is getattr(ag.nn, name) for name in ours)


def test_checkpoint_paths_of_torch_name_our_classes():
    from agdebug.nn.modules.container import Sequential
    from agdebug.nn.modules.conv import Conv2d
    from agdebug.nn.modules.linear import Linear
    from agdebug.nn.modules.sparse import Embedding

    assert (Linear, Conv2d, Sequential, Embedding) == (ag.nn.Linear, ag.nn.Conv2d,
                                                       ag.nn.Sequential, ag.nn.Embedding)


def test_functional_names_are_reached_from_the_package():
    import agdebug.nn.functional as F
    from agdebug.nn.functional import activation, loss

    assert loss.cross_entropy is F.cross_entropy and activation.relu is F.relu
    assert all(callable(getattr(F, name)) for name in F.__all__)
