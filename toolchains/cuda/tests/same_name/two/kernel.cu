// Same basename as ../one/kernel.cu, in the same cuda_library.
extern "C" int same_name_two(void) { return 2; }
