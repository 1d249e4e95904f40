"""The sampling kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py):
grid sampling (grid_sample_2d), PyTorch's ``grid_sample`` for 4-D inputs, and the separable
resampling of one dim by a few taps per output (``nn_resample``, ``interpolate``'s).

Every kernel is vectorized over all output points: corner (or tap) values are gathered with one
``take_along_axis`` per corner from the input with a zero appended to each (n, c) plane (the
index of an out-of-range corner points at that zero, so out-of-range corners read exactly 0 even
next to inf or nan values), and input gradients are accumulated in float64 with one scatter-add
(``idx_add_into_zeros``) per corner. The only Python loops run over the 4 bilinear corners or
the 4 x 4 bicubic taps. The coordinate math and the sampling plan are
``ember/backends/grid_coords.py``. Half-precision inputs compute in float32 and are cast back.
"""

from types import SimpleNamespace

from ... import dtypes
from ..grid_coords import plan as _plan


class SamplingKernels:
    def _grid_xp(self):
        """The namespace ``grid_coords`` computes with, from ``self.xp`` (its ``fmod`` only
        meets non-negative operands, where it is the standard's ``remainder``)."""
        xp = self.xp
        index = self.native_dtype(dtypes.int64)

        def where(cond, a, b):
            if not isinstance(a, self.Array) and not isinstance(b, self.Array):
                a = xp.asarray(a, device=self.native_device)
            return xp.where(cond, a, b)

        return SimpleNamespace(
            floor=xp.floor, round=xp.round, abs=xp.abs, fmod=xp.remainder, clip=xp.clip,
            where=where, isfinite=xp.isfinite, zeros_like=xp.zeros_like,
            ones_like=xp.ones_like, reshape=xp.reshape,
            astype_like=lambda x, ref: xp.astype(x, ref.dtype),
            index=lambda x: xp.astype(x, index))

    def _grid_work(self, dtype):
        """The backend dtype the kernels compute in for result (ember) dtype ``dtype``."""
        return self.native_dtype(dtypes.float32 if dtype.itemsize < 4 else dtype)

    def _grid_planes(self, x):
        """``x`` (N, C, H, W) as (N, C, H*W + 1): each plane followed by one zero."""
        xp = self.xp
        N, C, H, W = x.shape
        zero = xp.zeros((N, C, 1), dtype=x.dtype, device=self.native_device)
        return xp.concat([xp.reshape(x, (N, C, H * W)), zero], axis=2)

    def _grid_gather(self, planes, idx):
        """Values (N, C, P) of ``planes`` (N, C, HW + 1) at flat indices ``idx`` (N, 1, P)."""
        N, C = planes.shape[:2]
        return self.xp.take_along_axis(planes, self.xp.broadcast_to(idx, (N, C, idx.shape[2])),
                                       axis=2)

    def grid_sample_2d_forward(self, x, grid, mode, padding_mode, align_corners, dtype):
        """Sample ``x`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) as PyTorch's ``grid_sample``; the
        result (N, C, Ho, Wo) has ember dtype ``dtype``."""
        xp = self.xp
        wd = self._grid_work(dtype)
        N, C = x.shape[:2]
        Ho, Wo = grid.shape[1:3]
        planes = self._grid_planes(xp.astype(x, wd, copy=False))
        plan = _plan(self._grid_xp(), tuple(x.shape), xp.astype(grid, wd, copy=False), mode,
                     padding_mode, align_corners, False)
        out = None
        for idx, w, _, _ in plan:  # the corners / taps (1, 4 or 16)
            v = self._grid_gather(planes, idx)
            v = v if mode == "nearest" else v * w
            out = v if out is None else out + v
        out = xp.reshape(out, (N, C, Ho, Wo))
        return xp.astype(out, self.native_dtype(dtype), copy=False)

    def grid_sample_2d_grads(self, g, x, grid, mode, padding_mode, align_corners, dtype, need_x,
                             need_grid, x_dtype, grid_dtype):
        """The gradients (of ``x`` or None, of ``grid`` or None) of ``grid_sample_2d_forward``
        for the output gradient ``g`` (N, C, Ho, Wo), computed for result dtype ``dtype`` and
        returned in ember dtypes ``x_dtype`` and ``grid_dtype``. Nearest sampling gives a zero
        gradient to the grid, as PyTorch."""
        xp = self.xp
        wd = self._grid_work(dtype)
        N, C, H, W = x.shape
        HW = H * W
        Ho, Wo = grid.shape[1:3]
        P = Ho * Wo
        gw = xp.reshape(xp.astype(g, wd, copy=False), (N, C, P))
        grad_needed = need_grid and mode != "nearest"
        plan = _plan(self._grid_xp(), tuple(x.shape), xp.astype(grid, wd, copy=False), mode,
                     padding_mode, align_corners, grad_needed)
        gx_out = ggrid_out = None
        if need_x:
            i64, f64 = self.native_dtype(dtypes.int64), self.native_dtype(dtypes.float64)
            base = xp.reshape(xp.arange(N * C, dtype=i64, device=self.native_device) * (HW + 1),
                              (N, C, 1))
            size = N * C * (HW + 1)
            acc = None
            for idx, w, _, _ in plan:  # the corners / taps (1, 4 or 16): one scatter-add each
                key = self.idx_dim_key(xp.reshape(base + idx, (-1,)), 0)
                weights = xp.astype(xp.reshape(gw if mode == "nearest" else gw * w, (-1,)), f64)
                part = self.idx_add_into_zeros((size,), key, weights)
                acc = part if acc is None else acc + part
            gx_out = xp.reshape(xp.reshape(acc, (N, C, HW + 1))[:, :, :HW], (N, C, H, W))
            gx_out = xp.astype(gx_out, self.native_dtype(x_dtype))
        if need_grid:
            if grad_needed:
                planes = self._grid_planes(xp.astype(x, wd, copy=False))
                sx = sy = None
                for idx, _, dwx, dwy in plan:  # the corners / taps (4 or 16)
                    v = self._grid_gather(planes, idx)
                    sx = v * dwx if sx is None else sx + v * dwx
                    sy = v * dwy if sy is None else sy + v * dwy
                ggrid = xp.stack([xp.sum(sx * gw, axis=1), xp.sum(sy * gw, axis=1)], axis=-1)
            else:
                ggrid = xp.zeros((N, P, 2), dtype=wd, device=self.native_device)
            ggrid_out = xp.astype(xp.reshape(ggrid, (N, Ho, Wo, 2)),
                                  self.native_dtype(grid_dtype))
        return gx_out, ggrid_out

    def _resample_matrix(self, index, weight, n):
        """The dense (O, n) resampling matrix of the taps ``index``, ``weight`` (O, K)."""
        xp = self.xp
        cols = xp.arange(n, dtype=index.dtype, device=self.native_device)
        hit = xp.astype(index[:, :, None] == cols, weight.dtype)
        return xp.sum(hit * weight[:, :, None], axis=1)

    def nn_resample(self, x, axis, index, weight):
        """``x`` resampled along ``axis`` by taps: ``out[..., i, ...] = sum_k weight[i, k] *
        x[..., index[i, k], ...]`` (``index`` (O, K) int64, ``weight`` (O, K) of x's dtype).
        A product with the dense resampling matrix: a gather along a dim of a torch tensor
        (``index_select``) is several times slower than it."""
        xp = self.xp
        m = self._resample_matrix(index, weight, x.shape[axis])
        moved = self.linalg_matmul(xp.moveaxis(x, axis, -1), xp.matrix_transpose(m))
        return xp.moveaxis(moved, -1, axis)

    def nn_resample_grad(self, g, axis, index, weight, n):
        """The transpose of ``nn_resample`` (its gradient): ``g`` sent back to the ``n`` input
        positions along ``axis``, ``gx[..., index[i, k], ...] += weight[i, k] * g[..., i, ...]``."""
        xp = self.xp
        m = self._resample_matrix(index, weight, n)
        moved = self.linalg_matmul(xp.moveaxis(g, axis, -1), m)
        return xp.moveaxis(moved, -1, axis)
