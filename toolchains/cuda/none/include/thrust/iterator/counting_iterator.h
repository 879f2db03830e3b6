// cubridge's CUDA-less Thrust (--@cubridge//toolchains/cuda:mode=none).
#ifndef CUBRIDGE_NONE_THRUST_COUNTING_ITERATOR_H_
#define CUBRIDGE_NONE_THRUST_COUNTING_ITERATOR_H_

namespace thrust {

template <class T>
class counting_iterator {
 public:
  explicit counting_iterator(T value) : value_(value) {}
  T operator[](T i) const { return value_ + i; }
  T operator*() const { return value_; }

 private:
  T value_;
};

}  // namespace thrust

#endif  // CUBRIDGE_NONE_THRUST_COUNTING_ITERATOR_H_
