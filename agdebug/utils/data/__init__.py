"""``torch.utils.data`` for agdebug: datasets, samplers and the DataLoader.

>>> import agdebug as ag
>>> from agdebug.utils.data import DataLoader, TensorDataset
>>> data = TensorDataset(ag.arange(5.0), ag.arange(5))
>>> [y.tolist() for x, y in DataLoader(data, batch_size=2)]
[[0, 1], [2, 3], [4]]
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
