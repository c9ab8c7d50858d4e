# Copied from https://github.com/karpathy/minGPT mingpt/__init__.py at commit 37baab71b9abea1b76ab957409a1cc2fbfba8a26
# (MIT licence, Copyright (c) 2020 Andrej Karpathy: ../LICENSES.md). agdebug's test-suite
# runs it on torch and on agdebug; every change is marked "# agdebug:".
