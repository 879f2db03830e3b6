/* Checks between the array arguments of one call. */
#ifndef CUBRIDGE_CEXT_CHECKS_H_
#define CUBRIDGE_CEXT_CHECKS_H_

#include "arg.h"

/* Equal dtype (TypeError) / shape (ValueError), naming both arguments. */
int cb_same_dtype(const cb_module* m, const cb_arg* a, const cb_arg* b);
int cb_same_shape(const cb_arg* a, const cb_arg* b);
/* ValueError if the byte ranges of a and b overlap without being equal. */
int cb_check_overlap(const cb_arg* a, const cb_arg* b);

#endif /* CUBRIDGE_CEXT_CHECKS_H_ */
