// Reader for the shared test vectors (tests/vectors/*.txt, format in its README).
#ifndef CUBRIDGE_TESTS_VECTORS_H_
#define CUBRIDGE_TESTS_VECTORS_H_

#include <string>
#include <vector>

namespace cubridge_test {

struct VectorCase {
  std::string file;
  std::string name, op, dtype;
  std::vector<std::string> a, b, want;  // raw tokens (parse per dtype)
  bool has_alpha = false;
  double alpha = 0;
};

// $CUBRIDGE_VECTORS_DIR, else "tests/vectors" (relative to the current directory).
std::string VectorsDir();

// All *.txt files in `dir`, sorted.
std::vector<std::string> VectorFiles(const std::string& dir);

// Parses one file; returns false and sets *error on a malformed file.
bool ReadVectorFile(const std::string& path, std::vector<VectorCase>* cases, std::string* error);

double ParseDouble(const std::string& s);
long long ParseInt(const std::string& s);

}  // namespace cubridge_test

#endif  // CUBRIDGE_TESTS_VECTORS_H_
