"""A short tour: the movement examples of the spec, run on ember and printed with their results."""


EXAMPLES = [
    ("reshape", "t = Tensor.arange(6)\nprint(t.reshape(2, 3).numpy())"),
    ("expand", "t = Tensor([1, 2, 3])\nprint(t.expand(4, -1).numpy())"),
    ("permute", "t = Tensor.arange(6).reshape(2, 3)\nprint(t.permute(1, 0).numpy())"),
    ("flip", "t = Tensor.arange(6).reshape(2, 3)\nprint(t.flip(0).numpy())\nprint(t.flip((0, 1)).numpy())"),
    ("shrink", "t = Tensor.arange(9).reshape(3, 3)\nprint(t.shrink(((None, (1, 3)))).numpy())\n"
               "print(t.shrink((((0, 2), (0, 2)))).numpy())"),
    ("pad", "t = Tensor.arange(6).reshape(2, 3)\nprint(t.pad(((None, (1, 2)))).numpy())\n"
            "print(t.pad(((None, (1, 2))), -2).numpy())"),
    ("gather", "t = Tensor([[1, 2], [3, 4]])\nprint(t.gather(1, Tensor([[0, 0], [1, 0]])).numpy())"),
    ("cat", "t0, t1, t2 = Tensor([[1, 2]]), Tensor([[3, 4]]), Tensor([[5, 6]])\n"
            "print(t0.cat(t1, t2, dim=0).numpy())\nprint(t0.cat(t1, t2, dim=1).numpy())"),
    ("stack", "t0, t1, t2 = Tensor([1, 2]), Tensor([3, 4]), Tensor([5, 6])\n"
              "print(t0.stack(t1, t2, dim=0).numpy())\nprint(t0.stack(t1, t2, dim=1).numpy())"),
    ("repeat", "t = Tensor([1, 2, 3])\nprint(t.repeat(4, 2).numpy())\nprint(t.repeat(4, 2, 1).shape)"),
    ("repeat_interleave", "t = Tensor([1, 2, 3])\nprint(t.repeat_interleave(2).numpy())"),
    ("split", "t = Tensor.arange(10).reshape(5, 2)\nsplit = t.split(2)\n"
              "print('\\n'.join([repr(x.numpy()) for x in split]))\nsplit = t.split([1, 4])\n"
              "print('\\n'.join([repr(x.numpy()) for x in split]))"),
    ("chunk", "chunked = Tensor.arange(13).chunk(6)\n"
              "print('\\n'.join([repr(x.numpy()) for x in chunked]))"),
    ("squeeze", "t = Tensor.zeros(2, 1, 2, 1, 2)\nprint(t.squeeze().shape)\nprint(t.squeeze(0).shape)\n"
                "print(t.squeeze(1).shape)"),
    ("unsqueeze", "t = Tensor([1, 2, 3, 4])\nprint(t.unsqueeze(0).numpy())\nprint(t.unsqueeze(1).numpy())"),
    ("pad2d", "t = Tensor.arange(9).reshape(1, 1, 3, 3)\n"
              "print(t.pad2d((1, 1, 2, 0), value=-float('inf')).numpy())"),
    ("transpose", "t = Tensor.arange(6).reshape(2, 3)\nprint(t.transpose(0, 1).numpy())"),
    ("flatten", "t = Tensor.arange(8).reshape(2, 2, 2)\nprint(t.flatten().numpy())\n"
                "print(t.flatten(start_dim=1).numpy())"),
    ("unflatten", "print(Tensor.ones(3, 4, 1).unflatten(1, (2, 2)).shape)\n"
                  "print(Tensor.ones(3, 4, 1).unflatten(1, (-1, 2)).shape)\n"
                  "print(Tensor.ones(5, 12, 3).unflatten(-2, (2, 2, 3, 1, 1)).shape)"),
]


def run(out=print):
    """Run every example, printing its code and what it prints."""
    from . import Tensor
    for name, code in EXAMPLES:
        out(f"== {name}")
        namespace = {"Tensor": Tensor, "print": out}
        for line in code.splitlines():
            out(f">>> {line}")
            exec(line, namespace)  # the examples are fixed strings of this module
        out("")
