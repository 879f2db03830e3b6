// The test vectors (testdata/*.txt) from C++: cases of named values.
#ifndef DOWNSTREAM_TESTDATA_VECTORS_H_
#define DOWNSTREAM_TESTDATA_VECTORS_H_

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace vectors {

struct Case {
  std::string name, dtype;
  std::map<std::string, std::vector<double>> values;
  double scalar(const std::string& key) const { return values.at(key).at(0); }
};

// The cases of the file at `path` (or $VECTORS_DIR's file of the same name).
inline std::vector<Case> Load(std::string path) {
  if (const char* dir = std::getenv("VECTORS_DIR")) {
    path = std::string(dir) + "/" + path.substr(path.find_last_of('/') + 1);
  }
  std::ifstream in(path);
  std::vector<Case> cases;
  Case* current = nullptr;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string key;
    if (!(words >> key)) {
      current = nullptr;
      continue;
    }
    if (key == "case") {
      cases.emplace_back();
      current = &cases.back();
      words >> current->name >> current->dtype;
      continue;
    }
    std::vector<double>& values = current->values[key];
    for (std::string v; words >> v;) values.push_back(std::strtod(v.c_str(), nullptr));
  }
  return cases;
}

}  // namespace vectors

#endif  // DOWNSTREAM_TESTDATA_VECTORS_H_
