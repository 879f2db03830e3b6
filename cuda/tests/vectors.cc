#include "vectors.h"

#include <dirent.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace cubridge_test {

std::string VectorsDir() {
  const char* env = getenv("CUBRIDGE_VECTORS_DIR");
  if (env && *env) return env;
  return "tests/vectors";
}

std::vector<std::string> VectorFiles(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (struct dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".txt") == 0) out.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

double ParseDouble(const std::string& s) { return strtod(s.c_str(), nullptr); }

long long ParseInt(const std::string& s) {
  if (s.find_first_of(".eEinfa") != std::string::npos) return (long long)strtod(s.c_str(), nullptr);
  return strtoll(s.c_str(), nullptr, 10);
}

bool ReadVectorFile(const std::string& path, std::vector<VectorCase>* cases, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  std::string line;
  int lineno = 0;
  bool open = false;
  VectorCase c;
  while (std::getline(in, line)) {
    ++lineno;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::istringstream ss(line);
    std::string key;
    if (!(ss >> key)) continue;
    std::vector<std::string> toks;
    for (std::string t; ss >> t;) toks.push_back(t);
    auto bad = [&](const std::string& why) {
      *error = path + ":" + std::to_string(lineno) + ": " + why;
      return false;
    };
    if (key == "case") {
      if (open) return bad("case inside case");
      if (toks.size() != 3) return bad("want: case <name> <op> <dtype>");
      c = VectorCase();
      c.file = path;
      c.name = toks[0];
      c.op = toks[1];
      c.dtype = toks[2];
      open = true;
    } else if (!open) {
      return bad("'" + key + "' outside a case");
    } else if (key == "a") {
      c.a = toks;
    } else if (key == "b") {
      c.b = toks;
    } else if (key == "want") {
      c.want = toks;
    } else if (key == "alpha") {
      if (toks.size() != 1) return bad("alpha takes one value");
      c.has_alpha = true;
      c.alpha = ParseDouble(toks[0]);
    } else if (key == "end") {
      cases->push_back(c);
      open = false;
    } else {
      return bad("unknown key '" + key + "'");
    }
  }
  if (open) {
    *error = path + ": case " + c.name + " has no end";
    return false;
  }
  return true;
}

}  // namespace cubridge_test
