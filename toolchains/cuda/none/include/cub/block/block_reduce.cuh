// cubridge's CUDA-less CUB (--@cubridge//toolchains/cuda:mode=none): the block
// reduction compiles inside kernels that are never launched.
#ifndef CUBRIDGE_NONE_CUB_BLOCK_BLOCK_REDUCE_CUH_
#define CUBRIDGE_NONE_CUB_BLOCK_BLOCK_REDUCE_CUH_

namespace cub {

template <class T, int kBlockThreads>
class BlockReduce {
 public:
  struct TempStorage {};
  explicit BlockReduce(TempStorage&) {}
  // One thread's value is the whole block's: there is one thread, and no run.
  template <class Op>
  T Reduce(T v, Op) {
    return v;
  }
};

}  // namespace cub

#endif  // CUBRIDGE_NONE_CUB_BLOCK_BLOCK_REDUCE_CUH_
