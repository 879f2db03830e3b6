// Same basename as ../two/kernel.cu, in the same cuda_library.
extern "C" int same_name_one(void) { return 1; }
