"""Real PyTorch programs, unmodified but for their data, run on torch and on agdebug's
engine with the same seeds: agdebug must print what torch prints (float32 tolerance).

A program agdebug cannot run or match yet is a strict xfail (an XPASS fails, so the table
stays true) whose reason names what stops it.
"""

from __future__ import annotations

import os
import re

import pytest

from . import fakes
from .harness import HERE, Mismatch, Program, compare, run

TIMING = r"\d+(\.\d+)?\s*(ms|s)\b|ms/batch\s+[\d.]+"
CORPUS = tuple((f"data/wikitext-2/{split}.txt", fakes.word_corpus(lines=lines, seed=seed))
               for split, lines, seed in (("train", 60, 0), ("valid", 20, 1), ("test", 20, 2)))
NAMES = (("names.txt", fakes.names()),)
NANOGPT = ("--device=cpu", "--compile=False", "--dtype=float32", "--dataset=shakespeare_char",
           "--batch_size=4", "--block_size=16", "--n_layer=2", "--n_head=2", "--n_embd=32",
           "--max_iters=4", "--eval_interval=2", "--eval_iters=2", "--log_interval=1",
           "--gradient_accumulation_steps=1", "--always_save_checkpoint=False", "--dropout=0.1")
MAKEMORE = ("--num-workers", "0", "--max-steps", "21", "--n-layer", "2", "--n-embd", "16",
            "--n-embd2", "16", "--batch-size", "16")

PROGRAMS = [
    Program("regression", "regression.py"),
    Program("mnist", "mnist.py", ("--batch-size", "32", "--test-batch-size", "64",
                                  "--epochs", "1", "--log-interval", "1")),
    Program("vae", "vae.py", ("--batch-size", "32", "--epochs", "1", "--log-interval", "1")),
    Program("reinforce", "reinforce.py", ("--log-interval", "1")),
    Program("actor_critic", "actor_critic.py", ("--log-interval", "1")),
    Program("dcgan", "dcgan.py", ("--dataset", "fake", "--batchSize", "8", "--niter", "1",
                                  "--ngf", "4", "--ndf", "4", "--nz", "8", "--outf", ".")),
    Program("mnist_rnn", "mnist_rnn.py", ("--batch-size", "32", "--test-batch-size", "64",
                                          "--epochs", "1", "--log-interval", "1")),
    Program("time_sequence_prediction", "time_sequence_prediction.py", ("--steps", "2")),
    Program("gcn", "gcn.py", ("--epochs", "20", "--val-every", "5"), files=fakes.cora(),
            volatile=(TIMING,)),
    Program("word_language_model_lstm", "word_language_model/main.py",
            ("--epochs", "1", "--emsize", "16", "--nhid", "16", "--batch_size", "4",
             "--bptt", "8", "--log-interval", "4"), files=CORPUS, volatile=(TIMING,)),
    Program("word_language_model_transformer", "word_language_model/main.py",
            ("--model", "Transformer", "--epochs", "1", "--emsize", "16", "--nhid", "16",
             "--batch_size", "4", "--bptt", "8", "--log-interval", "4"), files=CORPUS,
            volatile=(TIMING,)),
    Program("mingpt_adder", "mingpt_adder/adder.py",
            ("--data.ndigit=1", "--trainer.max_iters=21", "--trainer.num_workers=0",
             "--trainer.batch_size=16", "--trainer.device=cpu"), volatile=(TIMING,)),
    Program("makemore_transformer", "makemore.py", MAKEMORE + ("--type", "transformer"),
            files=NAMES, volatile=(TIMING,)),
    Program("makemore_gru", "makemore.py", MAKEMORE + ("--type", "gru"), files=NAMES,
            volatile=(TIMING,)),
    Program("makemore_mlp", "makemore.py", MAKEMORE + ("--type", "mlp"), files=NAMES,
            volatile=(TIMING,)),
    Program("makemore_bow", "makemore.py", MAKEMORE + ("--type", "bow"), files=NAMES,
            volatile=(TIMING,)),
    Program("gat", "gat.py", ("--epochs", "5", "--val-every", "5", "--hidden-dim", "8",
                              "--num-heads", "2"), files=fakes.cora(nodes=1700),
            volatile=(TIMING,)),
    Program("nanogpt", "nanogpt/train.py", NANOGPT, files=fakes.shakespeare_char() + (
        ("configurator.py", open(os.path.join(HERE, "nanogpt", "configurator.py")).read()),),
            volatile=(TIMING, r"mfu\s+-?[\d.]+%")),
    Program("mnist_forward_forward", "mnist_forward_forward.py",
            ("--epochs", "20", "--train_size", "128", "--test_size", "64",
             "--log-interval", "5")),
]

# what stops a program on agdebug today, one line each
SPARSE = "sparse tensors (to_sparse, sparse_coo_tensor, torch.sparse.mm): agdebug refuses them"
ROUNDING = ("its printed numbers move with the last bit of MKL's rounding, which NumPy's BLAS "
            "and math functions do not reproduce")
BLOCKED = {
    # 830 SGD steps at lr 0.1 on x**4 features: the weights agree to 2e-6 for 400 steps,
    # then one step's last bit (MKL's small matrix products, in another order) sends them apart
    "regression": f"chaotic: {ROUNDING}",
    # torch itself prints valid ppl 55.74 at 2 threads where it prints 55.72 at 1; agdebug's
    # positional table (sin/cos of 40,000 values) and products differ from torch's in ulps
    "word_language_model_transformer": f"lr 20 over 13 steps: {ROUNDING}",
    "gcn": SPARSE, "gat": SPARSE,
}


def params():
    for program in PROGRAMS:
        # strict: a blocked program that starts to pass fails, so the table stays true
        marks = [pytest.mark.xfail(reason=BLOCKED[program.name], strict=True)] \
            if program.name in BLOCKED else []
        yield pytest.param(program, id=program.name, marks=marks)


@pytest.mark.parametrize("program", params())
def test_program_prints_what_torch_prints(torch, program):
    got = run(program, "agdebug")     # first: a blocked program fails in milliseconds
    assert got.error is None, f"on agdebug: {got.error}"
    want = run(program, "torch", threads=1)
    assert want.error is None, f"on torch: {want.error}"
    compare(want.stdout, got.stdout, program.volatile)


def test_every_program_has_its_source_named():
    for program in PROGRAMS:
        with open(os.path.join(HERE, program.file)) as f:
            head = f.read(400)
        assert "# Copied from https://github.com/" in head and "at commit" in head, program.file


def test_compare_allows_float32_noise_and_printed_rounding():
    assert compare("loss 0.1235 step 3\n", "loss 0.1234 step 3\n") <= 1e-3
    assert compare("x 1.0000001e-3", "x 1.00000e-3") < 1e-6
    assert compare("took 12.5ms", "took 3.1ms", volatile=(TIMING,)) == 0.0


@pytest.mark.parametrize("want, got, words", [
    ("loss 0.1235", "loss 0.1250", "line 1: 0.1250 where torch printed 0.1235"),
    ("step 3", "step 4", "line 1: 4 where torch printed 3"),
    ("loss 1.0", "error 1.0", "line 1 differs"),
    ("a\nb", "a", "torch printed 2 lines, agdebug 1"),
    ("nan", "0.5", "line 1: 0.5 where torch printed nan"),
])
def test_compare_names_the_first_difference(want, got, words):
    with pytest.raises(Mismatch, match=re.escape(words)):
        compare(want, got)


def test_the_backend_flags_a_program_sets_are_put_back(torch):
    import agdebug
    from .harness import _flags_kept
    with _flags_kept(torch):
        torch.backends.cudnn.benchmark = agdebug.backends.cuda.matmul.allow_tf32 = True
    assert not torch.backends.cudnn.benchmark and not agdebug.backends.cuda.matmul.allow_tf32
