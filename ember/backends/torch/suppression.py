"""Torch kernels of the vision suppression ops: non-maximum suppression of boxes (the same name,
order and rounding as the NumPy backend's ``nms_keep``)."""

import torch

__all__ = ["nms_keep"]

_LOW = (torch.float16, torch.bfloat16)


def nms_keep(boxes, scores, iou_threshold, score_threshold, max_output_boxes):
    """Indices (int64) of the boxes kept by non-maximum suppression, in decreasing score order:
    as the NumPy kernel (scores compared in float64, IoU in the boxes' dtype (float32 for the
    half floats) and compared with the threshold in float64; one turn per kept box)."""
    if boxes.dtype in _LOW:
        boxes = boxes.to(torch.float32)
    device = boxes.device
    s = scores.to(torch.float64)
    cand = torch.nonzero(s >= score_threshold).reshape(-1)
    order = cand[torch.sort(-s[cand], stable=True).indices]
    b = boxes[order]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    area = (x2 - x1) * (y2 - y1)
    zero = torch.zeros((), dtype=b.dtype, device=device)
    limit = max_output_boxes if max_output_boxes > 0 else order.numel()
    keep = []
    rem = torch.arange(order.numel(), device=device)  # positions in ``order`` still in play
    while rem.numel() and len(keep) < limit:  # one turn per kept box
        i = int(rem[0])
        keep.append(i)
        rest = rem[1:]
        w = torch.maximum(torch.minimum(x2[i], x2[rest]) - torch.maximum(x1[i], x1[rest]), zero)
        h = torch.maximum(torch.minimum(y2[i], y2[rest]) - torch.maximum(y1[i], y1[rest]), zero)
        inter = w * h
        iou = inter / (area[i] + area[rest] - inter)
        rem = rest[~(iou.to(torch.float64) > iou_threshold)]  # NaN IoU never suppresses
    return order[torch.tensor(keep, dtype=torch.int64, device=device)]
