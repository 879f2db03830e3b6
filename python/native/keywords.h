/* The parameter names of the ops bound with Python signatures (signature.h):
 * signature.c keeps each one interned (cb_keywords), so that a
 * keyword argument is found by pointer (a string compare per parameter cost
 * 20 ns a call). */
#ifndef CUBRIDGE_CEXT_KEYWORDS_H_
#define CUBRIDGE_CEXT_KEYWORDS_H_

#define CB_KEYWORDS(X) \
  X(a) X(b) X(x) X(y) X(alpha) X(value) X(dst) X(src) X(zero_value) X(out) X(stream)
enum {
#define CB_KEYWORD_ID(name) CB_KW_##name,
  CB_KEYWORDS(CB_KEYWORD_ID)
#undef CB_KEYWORD_ID
      CB_KW_COUNT
};
/* The text of keyword `id`. */
const char* cb_keyword_text(int id);

#endif /* CUBRIDGE_CEXT_KEYWORDS_H_ */
