"""The ops of ``torch.nn.functional``: softmax, losses, convolution, pooling, normalisation,
embedding, attention, sampling, upsampling, folding, packing and CTC."""
