/* Checks between the array arguments of one call. */
#ifndef CUBRIDGE_CEXT_CHECKS_H_
#define CUBRIDGE_CEXT_CHECKS_H_

#include "view.h"

/* Equal dtype (TypeError) / shape (ValueError), naming both arguments. */
int cb_same_dtype(const cb_state* st, const cb_view* a, const cb_view* b);
int cb_same_shape(const cb_view* a, const cb_view* b);
/* ValueError if the byte ranges of a and b overlap without being equal. */
int cb_check_overlap(const cb_view* a, const cb_view* b);

#endif /* CUBRIDGE_CEXT_CHECKS_H_ */
