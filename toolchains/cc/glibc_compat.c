// Keeps binaries built against Debian sid's glibc (2.4x) runnable on glibc 2.35+.
//
// sid's static libstdc++ and code built with _GNU_SOURCE call the C23 variants
// of strtol & co. (__isoc23_*, new in glibc 2.38). They differ from the classic
// functions only in accepting "0b" binary literals, which nothing here parses, so
// they forward to the classic symbols. Compiled as plain C11 so that the
// classic names are not themselves redirected.
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#define VISIBLE __attribute__((visibility("hidden"), used))

VISIBLE long __isoc23_strtol(const char* s, char** end, int base) { return strtol(s, end, base); }
VISIBLE long long __isoc23_strtoll(const char* s, char** end, int base) {
  return strtoll(s, end, base);
}
VISIBLE unsigned long __isoc23_strtoul(const char* s, char** end, int base) {
  return strtoul(s, end, base);
}
VISIBLE unsigned long long __isoc23_strtoull(const char* s, char** end, int base) {
  return strtoull(s, end, base);
}
VISIBLE intmax_t __isoc23_strtoimax(const char* s, char** end, int base) {
  return strtoimax(s, end, base);
}
VISIBLE uintmax_t __isoc23_strtoumax(const char* s, char** end, int base) {
  return strtoumax(s, end, base);
}
VISIBLE int __isoc23_vsscanf(const char* s, const char* format, va_list ap) {
  return vsscanf(s, format, ap);
}
VISIBLE int __isoc23_sscanf(const char* s, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vsscanf(s, format, ap);
  va_end(ap);
  return n;
}

// libstdc++'s std::random_device prefers arc4random (glibc 2.36); getrandom
// (glibc 2.25) gives the same kernel entropy.
VISIBLE uint32_t arc4random(void) {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value) {
  }
  return value;
}
