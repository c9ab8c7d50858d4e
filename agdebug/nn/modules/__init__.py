"""``torch.nn.modules``: the layers, each in the file where torch has it."""
