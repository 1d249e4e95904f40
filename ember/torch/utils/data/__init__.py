"""``ember.torch.utils.data``: PyTorch's data loading (``torch.utils.data``) for ember.torch
tensors: datasets, samplers, ``default_collate``/``default_convert``, ``get_worker_info`` and
``DataLoader`` with worker processes.

>>> import ember.torch as torch
>>> from ember.torch.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(torch.ones(5, 2)), batch_size=2)
>>> len(loader), [x.shape for (x,) in loader]
(3, [torch.Size([2, 2]), torch.Size([2, 2]), torch.Size([1, 2])])
"""

from .collate import collate, default_collate, default_collate_fn_map, default_convert
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedSampler, RandomSampler, Sampler,
                      SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)
from .worker import WorkerError, WorkerInfo, WorkerTimeoutError, get_worker_info

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "WorkerError", "WorkerInfo",
           "WorkerTimeoutError", "collate", "default_collate", "default_collate_fn_map",
           "default_convert", "get_worker_info", "random_split"]
