"""myquant: a 2-D kernel with an int32 output, bound by cubridge's kernel_binding.

``quantize(x, scale, *, q=None)``: q = round(x / scale), ties to even, saturated to
int32, NaN to 0; x float32 or float64 of shape (m, n).
"""

from myquant._quantize import quantize

__all__ = ["quantize"]
