// Dot products of float and double arrays on CPU threads, in double: 16
// lanes (lane j takes the products j, j + 16, ...; the lanes are then folded
// pairwise), so the result is the same on every machine and for any number of
// threads. The lanes loop has an AVX2 copy in GCC vector types (GCC's own
// vectorisation of the two-input loop shuffled across iterations: f64 dot 1e5
// took 97 us, 14x a sum of the same size), and an AVX-512 copy.
#ifndef CUBRIDGE_SRC_CPU_DOT_H_
#define CUBRIDGE_SRC_CPU_DOT_H_

#include <stddef.h>

namespace cubridge {

// The dot of x and y over [begin, end), one block of a reduction (reduce.cu
// folds the blocks in order with cpu_blocks).
double cpu_dot_block(const float* x, const float* y, size_t begin, size_t end);
double cpu_dot_block(const double* x, const double* y, size_t begin, size_t end);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_CPU_DOT_H_
