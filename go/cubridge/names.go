package cubridge

// #include "cubridge/cubridge.h"
import "C"

import "strconv"

// libraryName is a name from one of the C library's tables, or "kind(N)" for
// a value the library does not know: the tables live in the library only.
func libraryName(name *C.char, kind string, v int) string {
	if name != nil {
		return C.GoString(name)
	}
	return kind + "(" + strconv.Itoa(v) + ")"
}
