/* crepair: stand-in for <assert.h>; assert() is a built-in of the verifier. */
